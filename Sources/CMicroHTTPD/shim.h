#ifndef ATTACHE_CMICROHTTPD_SHIM_H
#define ATTACHE_CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* MHD_start_daemon is variadic: a typed wrapper for a daemon serving a socket the caller has already bound and put
   in listening state, with a connection limit, an idle timeout and an optional completion callback.
   On success MHD owns the socket and closes it in MHD_stop_daemon; on failure the caller still owns it. */
static inline struct MHD_Daemon *attache_mhd_start_listening(unsigned int flags, int listen_socket,
                                                             MHD_AccessHandlerCallback handler, void *handler_cls,
                                                             MHD_RequestCompletedCallback completed,
                                                             void *completed_cls, unsigned int connection_limit,
                                                             unsigned int timeout_seconds) {
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_socket,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_END);
}

/* MHD_get_connection_info is variadic: the socket of a connection, -1 when MHD does not tell it. */
static inline int attache_mhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}

/* ---- EmbeddedHTTP: values that are cast macros in microhttpd.h, which Swift cannot import. ---- */

/* MHD_SIZE_UNKNOWN: a streamed response whose length is not known up front (chunked on HTTP/1.1). */
static inline uint64_t attache_mhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }

/* MHD_CONTENT_READER_END_OF_STREAM: a content reader's regular end of a streamed response. */
static inline ssize_t attache_mhd_reader_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }

/* MHD_CONTENT_READER_END_WITH_ERROR: a content reader's failure; MHD closes the connection. */
static inline ssize_t attache_mhd_reader_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }

/* ---- end EmbeddedHTTP ---- */

#endif
