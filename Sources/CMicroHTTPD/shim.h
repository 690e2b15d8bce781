#ifndef ATTACHE_CMICROHTTPD_SHIM_H
#define ATTACHE_CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* MHD_start_daemon is variadic: a typed wrapper for a loopback daemon on a given port (0 = ephemeral),
   with a per-connection limit and an optional completion callback. */
static inline struct MHD_Daemon *attache_mhd_start(unsigned int flags, uint16_t port,
                                                   MHD_AccessHandlerCallback handler, void *handler_cls,
                                                   MHD_RequestCompletedCallback completed, void *completed_cls,
                                                   const struct sockaddr *bind_addr, unsigned int connection_limit,
                                                   unsigned int timeout_seconds) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_SOCK_ADDR, bind_addr,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_END);
}

/* The port the daemon actually bound (for port 0). */
static inline uint16_t attache_mhd_bound_port(struct MHD_Daemon *d) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/* ---- DevServices: values that are cast macros in microhttpd.h, which Swift cannot import. ---- */

/* MHD_SIZE_UNKNOWN: a streamed response whose length is not known up front (chunked on HTTP/1.1). */
static inline uint64_t attache_mhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }

/* MHD_CONTENT_READER_END_OF_STREAM: a content reader's regular end of a streamed response. */
static inline ssize_t attache_mhd_reader_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }

/* MHD_CONTENT_READER_END_WITH_ERROR: a content reader's failure; MHD closes the connection. */
static inline ssize_t attache_mhd_reader_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }

/* ---- end DevServices ---- */

#endif
