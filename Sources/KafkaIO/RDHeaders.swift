import CRdKafka

/// Builds an `rd_kafka_headers_t` from Swift headers for one produce call.
///
/// Owned by this object until a successful produce hands it to librdkafka.
final class RDHeaders {
    private var pointer: OpaquePointer?

    /// Copies `headers` into a new list; no list at all when `headers` is empty.
    init(_ headers: [KafkaHeader]) {
        guard !headers.isEmpty else { return }
        let list = rd_kafka_headers_new(headers.count)!
        for header in headers {
            if let value = header.value {
                value.withUnsafeBytes { bytes in
                    _ = rd_kafka_header_add(list, header.name, -1, bytes.baseAddress, bytes.count)
                }
            } else {
                _ = rd_kafka_header_add(list, header.name, -1, nil, 0)
            }
        }
        pointer = list
    }

    deinit {
        if let pointer { rd_kafka_headers_destroy(pointer) }
    }

    /// Lends the list (or `nil`) to a produce call; `body` returns whether librdkafka took ownership.
    func lend(_ body: (OpaquePointer?) -> Bool) {
        if body(pointer) { pointer = nil }
    }
}
