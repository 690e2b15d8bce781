#!/usr/bin/env python3
"""A librdkafka mock cluster from another librdkafka build (the one bundled in the confluent-kafka wheel), served in
a process of its own, with the same fault commands as `attache dev-broker --faults`.

    python3 mock_kafka.py [--brokers N]

The first line on stdout is the bootstrap address list. Then each line on stdin is one command, answered with one
line on stdout (`ok` or `error: <why>`):

    topic NAME PARTITIONS REPLICATION     create a topic
    down B | up B                          a broker refuses connections / accepts them again (brokers count from 1)
    rtt B MS                               delay a broker's answers
    leader TOPIC PARTITION B               move a partition's leadership
    coordinator GROUP B                    move a consumer group's coordinator
    errors API CODE[,CODE...]              answer the next requests of API with these errors, one each
    clear API                              forget the errors still queued for API
    topicerror TOPIC CODE                  answer every request about TOPIC with CODE (0 clears)

API is produce, fetch, listoffsets, metadata, offsetcommit, offsetfetch, findcoordinator, joingroup, heartbeat,
syncgroup or initproducerid; CODE a Kafka protocol error number or name (NOT_LEADER_FOR_PARTITION, ...).
It runs until stdin closes and SIGTERM, or SIGTERM alone.
"""
import argparse
import ctypes
import glob
import os
import signal
import sys
import threading

APIS = {"produce": 0, "fetch": 1, "listoffsets": 2, "metadata": 3, "offsetcommit": 8, "offsetfetch": 9,
        "findcoordinator": 10, "joingroup": 11, "heartbeat": 12, "syncgroup": 14, "initproducerid": 22}
ERRORS = {"UNKNOWN_TOPIC_OR_PART": 3, "UNKNOWN_TOPIC_OR_PARTITION": 3, "LEADER_NOT_AVAILABLE": 5, "NOT_LEADER_FOR_PARTITION": 6, "REQUEST_TIMED_OUT": 7,
          "COORDINATOR_LOAD_IN_PROGRESS": 14, "COORDINATOR_NOT_AVAILABLE": 15, "NOT_COORDINATOR": 16,
          "NOT_ENOUGH_REPLICAS": 19, "ILLEGAL_GENERATION": 22, "UNKNOWN_MEMBER_ID": 25, "REBALANCE_IN_PROGRESS": 27,
          "TOPIC_AUTHORIZATION_FAILED": 29, "KAFKA_STORAGE_ERROR": 56}


def library():
    import confluent_kafka
    folder = os.path.dirname(os.path.dirname(confluent_kafka.__file__))
    candidates = glob.glob(os.path.join(folder, "confluent_kafka.libs", "librdkafka*.so*"))
    if not candidates:
        sys.exit("mock_kafka.py: the confluent-kafka wheel's librdkafka was not found")
    lib = ctypes.CDLL(candidates[0])
    lib.rd_kafka_conf_new.restype = ctypes.c_void_p
    lib.rd_kafka_conf_set.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.rd_kafka_new.restype = ctypes.c_void_p
    lib.rd_kafka_new.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.rd_kafka_mock_cluster_new.restype = ctypes.c_void_p
    lib.rd_kafka_mock_cluster_new.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.rd_kafka_mock_cluster_bootstraps.restype = ctypes.c_char_p
    lib.rd_kafka_mock_cluster_bootstraps.argtypes = [ctypes.c_void_p]
    lib.rd_kafka_mock_topic_create.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
    lib.rd_kafka_mock_push_request_errors_array.argtypes = [ctypes.c_void_p, ctypes.c_int16, ctypes.c_size_t,
                                                            ctypes.POINTER(ctypes.c_int)]
    lib.rd_kafka_mock_clear_request_errors.argtypes = [ctypes.c_void_p, ctypes.c_int16]
    lib.rd_kafka_mock_broker_set_down.argtypes = [ctypes.c_void_p, ctypes.c_int32]
    lib.rd_kafka_mock_broker_set_up.argtypes = [ctypes.c_void_p, ctypes.c_int32]
    lib.rd_kafka_mock_broker_set_rtt.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_int]
    lib.rd_kafka_mock_partition_set_leader.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32, ctypes.c_int32]
    lib.rd_kafka_mock_coordinator_set.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int32]
    lib.rd_kafka_mock_topic_set_error.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    return lib


def code(text):
    return int(text) if text.lstrip("-").isdigit() else ERRORS[text.upper()]


def apply(lib, cluster, words):
    command, args = words[0], words[1:]
    if command == "topic":
        return lib.rd_kafka_mock_topic_create(cluster, args[0].encode(), int(args[1]), int(args[2]))
    if command == "down":
        return lib.rd_kafka_mock_broker_set_down(cluster, int(args[0]))
    if command == "up":
        return lib.rd_kafka_mock_broker_set_up(cluster, int(args[0]))
    if command == "rtt":
        return lib.rd_kafka_mock_broker_set_rtt(cluster, int(args[0]), int(args[1]))
    if command == "leader":
        return lib.rd_kafka_mock_partition_set_leader(cluster, args[0].encode(), int(args[1]), int(args[2]))
    if command == "coordinator":
        return lib.rd_kafka_mock_coordinator_set(cluster, b"group", args[0].encode(), int(args[1]))
    if command == "errors":
        codes = [code(c) for c in args[1].split(",")]
        array = (ctypes.c_int * len(codes))(*codes)
        lib.rd_kafka_mock_push_request_errors_array(cluster, APIS[args[0].lower()], len(codes), array)
        return 0
    if command == "clear":
        lib.rd_kafka_mock_clear_request_errors(cluster, APIS[args[0].lower()])
        return 0
    if command == "topicerror":
        lib.rd_kafka_mock_topic_set_error(cluster, args[0].encode(), code(args[1]))
        return 0
    raise ValueError("unknown command " + command)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--brokers", type=int, default=3)
    options = parser.parse_args()
    lib = library()
    conf = lib.rd_kafka_conf_new()
    errstr = ctypes.create_string_buffer(512)
    # The carrier handle has no brokers of its own; its configuration warning is noise.
    lib.rd_kafka_conf_set(conf, b"log_level", b"3", errstr, 512)
    client = lib.rd_kafka_new(1, conf, errstr, 512)
    if not client:
        sys.exit("mock_kafka.py: " + errstr.value.decode())
    cluster = lib.rd_kafka_mock_cluster_new(client, options.brokers)
    if not cluster:
        sys.exit("mock_kafka.py: the mock cluster did not start")
    print(lib.rd_kafka_mock_cluster_bootstraps(cluster).decode(), flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())

    def commands():
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            try:
                result = apply(lib, cluster, words)
                print("ok" if not result else "error: code {}".format(result), flush=True)
            except Exception as error:  # a bad command is answered, never fatal
                print("error: {}".format(error), flush=True)

    threading.Thread(target=commands, daemon=True).start()
    while not stop.wait(0.5):
        pass


if __name__ == "__main__":
    main()
