#ifndef ATTACHE_CRDKAFKA_SHIM_H
#define ATTACHE_CRDKAFKA_SHIM_H

#include <librdkafka/rdkafka.h>
/* The mock cluster API needs the types declared in rdkafka.h. */
#include <librdkafka/rdkafka_mock.h>
#include <sys/prctl.h>

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

/* rd_kafka_mock_broker_push_request_error_rtts is variadic too: a typed wrapper that pushes one error (answered
 * after rtt_ms) onto one broker's stack for one API. */
static inline rd_kafka_resp_err_t attache_rd_kafka_mock_broker_push_request_error(rd_kafka_mock_cluster_t *mcluster,
                                                                                  int32_t broker_id, int16_t api_key,
                                                                                  rd_kafka_resp_err_t error, int rtt_ms) {
    return rd_kafka_mock_broker_push_request_error_rtts(mcluster, broker_id, api_key, 1, error, rtt_ms);
}

/* prctl is variadic: typed wrappers for the calling thread's timer slack (nanoseconds), which threads it starts
   inherit. */
static inline unsigned long attache_timer_slack(void) { return (unsigned long)prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0); }
static inline int attache_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0);
}

#endif
