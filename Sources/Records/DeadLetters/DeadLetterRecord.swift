import Foundation
import KafkaIO

/// The dead-letter copy of an invalid record: byte-for-byte value and key, its original headers, and where it came
/// from and why it was refused.
public enum DeadLetterRecord {
    /// The headers a dead letter adds to the original's: written here, read back by the operator commands and the
    /// dashboard.
    public enum Header {
        public static let sourceTopic = "attache.source.topic"
        public static let sourcePartition = "attache.source.partition"
        public static let sourceOffset = "attache.source.offset"
        public static let error = "attache.error"
    }

    public static func make(from record: KafkaRecord, reason: String, topic: String) -> KafkaProducerRecord {
        var headers = record.headers
        headers.append(KafkaHeader(Header.sourceTopic, record.topic))
        headers.append(KafkaHeader(Header.sourcePartition, String(record.partition)))
        headers.append(KafkaHeader(Header.sourceOffset, String(record.offset)))
        headers.append(KafkaHeader(Header.error, reason))
        return KafkaProducerRecord(topic: topic, key: record.key, value: record.value, headers: headers)
    }
}
