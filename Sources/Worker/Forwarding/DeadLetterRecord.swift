import Foundation
import KafkaIO

/// The dead-letter copy of an invalid record: byte-for-byte value and key, its original headers, and where it came
/// from and why it was refused.
enum DeadLetterRecord {
    static func make(from record: KafkaRecord, reason: String, topic: String) -> KafkaProducerRecord {
        var headers = record.headers
        headers.append(KafkaHeader("attache.source.topic", record.topic))
        headers.append(KafkaHeader("attache.source.partition", String(record.partition)))
        headers.append(KafkaHeader("attache.source.offset", String(record.offset)))
        headers.append(KafkaHeader("attache.error", reason))
        return KafkaProducerRecord(topic: topic, key: record.key, value: record.value, headers: headers)
    }
}
