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
        // Names go with their length, so one holding NUL is not cut short; an empty value goes as a non-null
        // pointer of length 0, which librdkafka keeps apart from a null value.
        for header in headers {
            let terminated = header.rawName + [0]
            terminated.withUnsafeBufferPointer { bytes in
                let name = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
                let nameLength = bytes.count - 1
                switch header.value {
                case .none:
                    _ = rd_kafka_header_add(list, name, nameLength, nil, 0)
                case .some(let value) where value.isEmpty:
                    // Any valid address will do for zero bytes.
                    _ = rd_kafka_header_add(list, name, nameLength, name, 0)
                case .some(let value):
                    value.withUnsafeBytes { _ = rd_kafka_header_add(list, name, nameLength, $0.baseAddress, $0.count) }
                }
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
