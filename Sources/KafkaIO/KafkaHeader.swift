import Foundation

/// One record header: a name and optional bytes.
public struct KafkaHeader: Hashable, Sendable {
    /// The header name.
    public var name: String
    /// The header value; `nil` is a header without a value (distinct from an empty one).
    public var value: Data?

    /// A header with raw bytes.
    public init(_ name: String, _ value: Data?) {
        self.name = name
        self.value = value
    }

    /// A header whose value is the UTF-8 of `value`.
    public init(_ name: String, _ value: String) {
        self.init(name, Data(value.utf8))
    }

    /// The value decoded as UTF-8, if it is present and valid.
    public var stringValue: String? { value.flatMap { String(data: $0, encoding: .utf8) } }
}
