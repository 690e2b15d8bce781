import CRdKafka
import Foundation

extension KafkaRecord {
    /// Copies a librdkafka message into a Swift record; the caller destroys the message afterwards.
    ///
    /// `topic` saves reading the topic's name back from C for every record when the caller knows it.
    init(message: UnsafeMutablePointer<rd_kafka_message_t>, topic: String? = nil) {
        let raw = message.pointee
        var headers: [KafkaHeader] = []
        var headerList: OpaquePointer?
        if rd_kafka_message_headers(message, &headerList) == RD_KAFKA_RESP_ERR_NO_ERROR, let headerList {
            let count = rd_kafka_header_cnt(headerList)
            headers.reserveCapacity(count)
            for index in 0..<count {
                var name: UnsafePointer<CChar>?
                var value: UnsafeRawPointer?
                var size = 0
                guard rd_kafka_header_get_all(headerList, index, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR,
                      let name else { continue }
                let length = Self.headerNameLength(name, value: value)
                let rawName = name.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
                headers.append(KafkaHeader(rawName: rawName, value.map { Data(bytes: $0, count: size) }))
            }
        }
        var timestampType = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let timestamp = rd_kafka_message_timestamp(message, &timestampType)
        self.init(
            topic: topic ?? String(cString: rd_kafka_topic_name(raw.rkt)),
            partition: raw.partition,
            offset: raw.offset,
            key: raw.key.map { Data(bytes: $0, count: raw.key_len) },
            value: raw.payload.map { Data(bytes: $0, count: raw.len) },
            headers: headers,
            timestampMilliseconds: timestampType == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE ? nil : timestamp)
    }

    /// The byte length of a header name as the record carried it. `rd_kafka_header_get_all` gives only the name's
    /// address, NUL-terminated, but a name may hold NUL itself. librdkafka stores a header's value right behind its
    /// terminated name, so for a header with a value the distance between the two is the name's length; without a
    /// value only the length up to the first NUL can be known.
    static func headerNameLength(_ name: UnsafePointer<CChar>, value: UnsafeRawPointer?) -> Int {
        let terminated = strlen(name)
        guard let value else { return terminated }
        let distance = UnsafeRawPointer(name).distance(to: value) - 1
        // Anything else means another layout: trust only the terminated length.
        guard distance >= terminated, distance <= 1 << 20, name[distance] == 0 else { return terminated }
        return distance
    }
}
