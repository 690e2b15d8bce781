import Foundation
import KafkaIO
import WireFormat

/// A record of the dead-letter topic: the invalid record's key, value and headers as they were, with the worker's
/// provenance headers (`attache.source.topic`, `.partition`, `.offset`) and its reason (`attache.error`).
public struct DeadLetter: Sendable, Hashable {
    /// Where the dead letter itself is.
    public let partition: Int32
    public let offset: Int64
    public let time: Date?
    public let key: Data?
    public let value: Data?
    public let headers: [KafkaHeader]

    public init(partition: Int32, offset: Int64, time: Date?, key: Data?, value: Data?, headers: [KafkaHeader]) {
        self.partition = partition
        self.offset = offset
        self.time = time
        self.key = key
        self.value = value
        self.headers = headers
    }

    public init(_ record: KafkaRecord) {
        self.init(partition: record.partition, offset: record.offset,
                  time: record.timestampMilliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) },
                  key: record.key, value: record.value, headers: record.headers)
    }

    /// The headers the worker added; a replay drops them.
    public static let provenancePrefix = "attache."

    private func header(_ name: String) -> String? { headers.last { $0.name == name }?.stringValue }

    /// `topic/partition/offset` of the record that was refused, when the headers say.
    public var source: String? {
        guard let topic = header(DeadLetterRecord.Header.sourceTopic) else { return nil }
        return "\(topic)/\(header(DeadLetterRecord.Header.sourcePartition) ?? "?")/\(header(DeadLetterRecord.Header.sourceOffset) ?? "?")"
    }

    /// Why the worker refused it.
    public var error: String? { header(DeadLetterRecord.Header.error) }

    /// The key as text (bytes that are not UTF-8 escaped).
    public var keyText: String { key.map(Self.printable) ?? "(no key)" }

    /// The start of the value on one line, non-printable bytes escaped, cut at `limit` characters.
    public func valuePreview(limit: Int = 120) -> String {
        guard let value else { return "(no value)" }
        let text = Self.printable(value.prefix(limit * 4))
        return text.count > limit ? String(text.prefix(limit)) + "…" : text + (value.count > limit * 4 ? "…" : "")
    }

    /// The record a replay produces to `topic`: the original key, value and headers, the provenance headers dropped.
    public func replay(to topic: String) -> KafkaProducerRecord {
        KafkaProducerRecord(topic: topic, key: key, value: value,
                            headers: headers.filter { !$0.name.hasPrefix(Self.provenancePrefix) })
    }

    /// Whether `text` occurs (ignoring case) in the key, the value, the error or the source.
    public func matches(_ text: String) -> Bool {
        [keyText, value.map { String(decoding: $0, as: UTF8.self) } ?? "", error ?? "", source ?? ""]
            .contains { $0.range(of: text, options: .caseInsensitive) != nil }
    }

    /// The listing of one dead letter: where it is, when, its source, key and error, then a preview of the value.
    public var listing: String {
        let when = time.map(RFC3339Instant.format) ?? "-"
        return "\(partition)/\(offset)  \(when)  from \(source ?? "?")  key \(keyText)\n"
            + "  error: \(error ?? "(none)")\n  value: \(valuePreview())"
    }

    /// UTF-8 shown as is, except control characters (escaped); other bytes as `\xNN`.
    static func printable(_ bytes: some Collection<UInt8>) -> String {
        var text = ""
        let decoded = String(decoding: bytes, as: UTF8.self)
        let valid = Array(decoded.utf8).elementsEqual(bytes)
        guard valid else { return bytes.map { $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }.joined() }
        for scalar in decoded.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                text += scalar == "\n" ? "\\n" : scalar == "\t" ? "\\t" : String(format: "\\x%02X", scalar.value)
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}
