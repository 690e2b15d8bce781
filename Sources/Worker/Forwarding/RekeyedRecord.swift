import Foundation
import KafkaIO

/// The copy of a job or control record that arrived under another key than the `batchId` it names (or none): the
/// same value and headers, keyed by the batch id so that the partitioner puts it where the batch's records belong,
/// plus where it came from (DESIGN §2.1 "A job's record key is its batchId").
enum RekeyedRecord {
    /// `<topic>/<partition>/<offset>` of the record the copy was made from.
    static let provenanceHeader = "attache.rekeyed-from"

    static func make(from record: KafkaRecord, batchId: String) -> KafkaProducerRecord {
        var headers = record.headers
        headers.append(KafkaHeader(provenanceHeader, "\(record.topic)/\(record.partition)/\(record.offset)"))
        return KafkaProducerRecord(topic: record.topic, key: Data(batchId.utf8), value: record.value, headers: headers)
    }
}
