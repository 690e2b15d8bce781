import Foundation

/// One record header: a name and optional bytes.
///
/// The name is kept as the bytes the record carried — a header name may hold NUL or bytes that are not UTF-8 — so a
/// record copied elsewhere (a dead letter) carries exactly the headers it arrived with.
public struct KafkaHeader: Hashable, Sendable {
    /// The name's bytes as on the wire.
    public var rawName: [UInt8]
    /// The header value; `nil` is a header without a value (distinct from an empty one).
    public var value: Data?

    /// The name as text (bytes that are not UTF-8 are shown as U+FFFD); setting it stores its UTF-8.
    public var name: String {
        get { String(decoding: rawName, as: UTF8.self) }
        set { rawName = Array(newValue.utf8) }
    }

    /// A header with raw bytes.
    public init(_ name: String, _ value: Data?) {
        self.init(rawName: Array(name.utf8), value)
    }

    /// A header whose name is given as bytes.
    public init(rawName: [UInt8], _ value: Data?) {
        self.rawName = rawName
        self.value = value
    }

    /// A header whose value is the UTF-8 of `value`.
    public init(_ name: String, _ value: String) {
        self.init(name, Data(value.utf8))
    }

    /// The value decoded as UTF-8, if it is present and valid.
    public var stringValue: String? { value.flatMap { String(data: $0, encoding: .utf8) } }
}
