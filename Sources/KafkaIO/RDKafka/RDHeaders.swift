import CRdKafka
import Foundation

/// Builds an `rd_kafka_headers_t` from Swift headers for one produce call.
///
/// Owned by this object until a successful produce hands it to librdkafka.
final class RDHeaders {
    private var pointer: OpaquePointer?

    /// Copies `headers` into a new list; no list at all when `headers` is empty.
    init(_ headers: [KafkaHeader]) {
        guard !headers.isEmpty else { return }
        let list = rd_kafka_headers_new(headers.count)!
        // Names go with their length (librdkafka copies that many bytes), so one holding NUL is not cut short and
        // none needs a terminator; an empty value goes as a non-null pointer of length 0, which librdkafka keeps
        // apart from a null value.
        for header in headers {
            header.rawName.withUnsafeBufferPointer { name in
                if let base = name.baseAddress {
                    Self.add(header.value, named: base, length: name.count, to: list)
                } else {
                    var nothing: UInt8 = 0
                    withUnsafePointer(to: &nothing) { Self.add(header.value, named: $0, length: 0, to: list) }
                }
            }
        }
        pointer = list
    }

    private static func add(_ value: Data?, named name: UnsafePointer<UInt8>, length: Int, to list: OpaquePointer) {
        let name = UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self)
        switch value {
        case .none:
            _ = rd_kafka_header_add(list, name, length, nil, 0)
        case .some(let value) where value.isEmpty:
            // Any valid address will do for zero bytes.
            _ = rd_kafka_header_add(list, name, length, name, 0)
        case .some(let value):
            value.withUnsafeBytes { _ = rd_kafka_header_add(list, name, length, $0.baseAddress, $0.count) }
        }
    }

    deinit {
        if let pointer { rd_kafka_headers_destroy(pointer) }
    }

    /// Lends the list (or `nil`) to a produce call; `body` returns whether librdkafka took ownership.
    func lend(_ body: (OpaquePointer?) -> Bool) {
        if body(pointer) { pointer = nil }
    }
}
