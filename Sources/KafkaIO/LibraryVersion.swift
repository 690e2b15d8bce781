import CRdKafka

/// The version of the librdkafka this build links against.
public enum KafkaLibrary {
    public static var version: String { String(cString: rd_kafka_version_str()) }
}
