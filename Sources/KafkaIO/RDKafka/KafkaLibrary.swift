import CRdKafka

/// Facts about the librdkafka this build links against.
public enum KafkaLibrary {
    /// The library's version string, e.g. `2.0.2`.
    public static var version: String { String(cString: rd_kafka_version_str()) }
}
