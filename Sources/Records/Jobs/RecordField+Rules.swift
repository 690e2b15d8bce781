import Foundation
import UploadEngine
import WireFormat

extension RecordField {
    /// What is wrong with `value` as this field, or nil: more bytes than ``maxBytes``, or characters the field may
    /// not hold. `label` names the field in the message (the record key stands in for `batchId`).
    public func problem(with value: String, label: String? = nil) -> String? {
        let label = label ?? rawValue
        let size = value.utf8.count
        guard size <= maxBytes else { return "\(label) takes \(size) bytes; at most \(maxBytes) are allowed" }
        switch self {
        case .batchId, .requestId, .fileId, .tenant:
            // Ids key events, snapshots, object keys and headers: something visible, nothing that breaks or hides text.
            guard Self.isIdentifier(value) else { return "\(label) must be 1–\(maxBytes) bytes of printable characters, not blank" }
        case .receiverId:
            guard !Self.isBlank(value) else { return "\(label) must be a non-empty string" }
            guard HeaderSafety.isSafe(value) else { return "\(label) must not contain control characters" }
        case .sender, .parentMessageId:
            // Sent as `onBehalfOf` and in the presign call: a line break would add a header of the sender's choosing.
            guard HeaderSafety.isSafe(value) else { return "\(label) must not contain control characters" }
        case .name:
            guard !Self.isBlank(value), !value.unicodeScalars.contains(where: Self.isControl) else {
                return "\(label) must be 1–\(maxBytes) bytes, not blank, without control characters"
            }
        case .mimeType:
            // It becomes the upload's Content-Type: a line break in a parameter would add a header of its own.
            guard HeaderSafety.isSafe(value) else { return "\(label) must not contain control characters" }
            guard MimeTypes.isWellFormed(value) else { return "\(label) '\(value)' is not of the form type/subtype" }
        case .url, .path:
            guard !value.isEmpty, !value.unicodeScalars.contains(where: Self.isControl) else {
                return "\(label) is empty or contains control characters"
            }
        case .traceparent, .tracestate:
            guard value.utf8.allSatisfy(Self.isPrintableASCII) else { return "\(label) must be printable ASCII" }
        }
        return nil
    }

    /// `value` cut to the field's limit (ending in `…` when cut): what a file refused for a field over its limit keeps
    /// of it, so its rejection and its place in the batch's snapshot stay bounded.
    func bounded(_ value: String) -> String {
        WireError.cut(value, toBytes: maxBytes)
    }

    /// A header's text when it is within this field's limit and printable ASCII throughout; nil (the header is
    /// ignored) otherwise. Judged on the bytes, before anything is decoded: a header of any size costs one pass.
    func headerText(_ value: Data?) -> String? {
        guard let value, value.count <= maxBytes, value.allSatisfy(Self.isPrintableASCII) else { return nil }
        return String(decoding: value, as: UTF8.self)
    }

    /// 1 or more visible characters, none of them control or format characters: the rule of `batchId`, `requestId`
    /// and `fileId` besides their byte limit.
    static func isIdentifier(_ id: String) -> Bool {
        !id.unicodeScalars.contains(where: isControl) && !isBlank(id)
    }

    /// True when `text` is empty or only what `CharacterSet.whitespaces` trims: tabs, space separators and U+200B
    /// ZERO WIDTH SPACE. Checked without Foundation or a trimmed copy, since it runs for every job and file.
    static func isBlank(_ text: String) -> Bool {
        !text.unicodeScalars.contains { scalar in
            // ASCII needs no Unicode property lookup, and ids and names are nearly always ASCII.
            scalar.isASCII
                ? scalar != " " && scalar != "\t"
                : scalar != "\u{200B}" && scalar.properties.generalCategory != .spaceSeparator
        }
    }

    /// C0 and C1 controls, DEL, format characters (which hide or reorder text) and Unicode line and paragraph
    /// separators.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar.value < 0x20 || scalar.value == 0x7F }
        return switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    static func isPrintableASCII(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F
    }
}
