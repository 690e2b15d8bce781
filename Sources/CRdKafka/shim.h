#ifndef ATTACHE_CRDKAFKA_SHIM_H
#define ATTACHE_CRDKAFKA_SHIM_H

#include <pthread.h>
#include <string.h>

#include <librdkafka/rdkafka.h>

/* Names the calling thread as `top -H`, `ps -L` and perf show it (its first 15 bytes). pthread_setname_np is a GNU
   extension, declared here rather than through _GNU_SOURCE, which would change how <sys/select.h> declares fd_set
   for this module alone and clash with the other modules that include it. */
extern int pthread_setname_np(pthread_t thread, const char *name);
static inline int attache_rdkafka_name_this_thread(const char *name) {
    char cut[16]; /* the kernel keeps 15 bytes; a longer name would be refused whole */
    strncpy(cut, name, sizeof cut - 1);
    cut[sizeof cut - 1] = 0;
    return pthread_setname_np(pthread_self(), cut);
}
/* The mock cluster API needs the types declared in rdkafka.h. */
#include <librdkafka/rdkafka_mock.h>

/* rd_kafka_producev is variadic, which Swift cannot call: a typed wrapper for the one shape we produce. */
static inline rd_kafka_resp_err_t attache_rd_kafka_produce(rd_kafka_t *rk, const char *topic, int32_t partition,
                                                           const void *value, size_t value_len,
                                                           const void *key, size_t key_len,
                                                           rd_kafka_headers_t *headers, void *opaque) {
    return rd_kafka_producev(rk,
                             RD_KAFKA_V_TOPIC(topic),
                             RD_KAFKA_V_PARTITION(partition),
                             RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                             RD_KAFKA_V_VALUE((void *)value, value_len),
                             RD_KAFKA_V_KEY(key, key_len),
                             RD_KAFKA_V_HEADERS(headers),
                             RD_KAFKA_V_OPAQUE(opaque),
                             RD_KAFKA_V_END);
}

#endif
