import Foundation
import UploadEngine
import WireFormat

/// A presign endpoint's answer (`docs/wire-format.md#presign-endpoint`): `{"files":[…]}`, each entry either
/// `{"fileId","uploadUrl","method","headers","fileUrl","expiresAt"}` or `{"fileId","error":{"code","message"}}`.
///
/// `method` defaults to `PUT`, `headers` to none (a JSON object, so their order is not kept: they are sorted by
/// name), `expiresAt` to never; it is RFC 3339 (fractional seconds allowed) or epoch seconds, as a number or a
/// string. Read with the engine's JSON parser: one answer per presign call is on every job's path.
struct PresignEndpointAnswer: Sendable {
    /// One file's answer.
    struct Entry: Sendable {
        /// The file the entry is about.
        var fileId: String
        /// A target, or a refusal with the service's code.
        var outcome: PresignOutcome
    }

    /// Why an answer is unreadable, naming where, never quoting values.
    struct Unreadable: Error, Sendable, Hashable, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The entries, in the service's order.
    var files: [Entry]

    /// Reads an answer body.
    init(parsing body: Data) throws(Unreadable) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(body)
        } catch {
            throw Unreadable("not JSON")
        }
        guard case .object(let root) = value else { throw Unreadable("wrong type at the top level") }
        guard case .array(let entries) = root["files"] ?? .null else { throw Unreadable("missing files array") }
        files = try entries.indices.map { index throws(Unreadable) in try Self.entry(entries[index], at: "files.\(index)") }
    }

    /// Reads either shape; an entry with neither `error` nor `uploadUrl`/`fileUrl` is unreadable.
    private static func entry(_ value: JSONValue, at path: String) throws(Unreadable) -> Entry {
        guard case .object(let fields) = value else { throw Unreadable("wrong type at \(path)") }
        guard let fileId = try string(fields, "fileId", at: path) else { throw Unreadable("missing fileId at \(path)") }
        if let refusal = fields["error"], refusal != .null {
            guard case .object(let error) = refusal else { throw Unreadable("wrong type at \(path).error") }
            let code = try string(error, "code", at: "\(path).error").flatMap { $0.isEmpty ? nil : UploadErrorCode($0) }
            let message = try string(error, "message", at: "\(path).error").flatMap { $0.isEmpty ? nil : $0 }
            return Entry(fileId: fileId, outcome: .refused(UploadError(
                code ?? .presignedURLFailed, message ?? "the presign service refused the file", retryable: false)))
        }
        guard let uploadURL = try string(fields, "uploadUrl", at: path) else { throw Unreadable("missing uploadUrl at \(path)") }
        guard let fileURL = try string(fields, "fileUrl", at: path) else { throw Unreadable("missing fileUrl at \(path)") }
        let method = try string(fields, "method", at: path)
        return Entry(fileId: fileId, outcome: .target(UploadTarget(
            uploadURL: uploadURL,
            method: method.map { $0.isEmpty ? "PUT" : $0.uppercased() } ?? "PUT",
            headers: try headers(fields["headers"], at: "\(path).headers"),
            fileURL: fileURL,
            expiresAt: try instant(fields["expiresAt"], at: "\(path).expiresAt"))))
    }

    /// A string member; nil when absent or null.
    private static func string(_ fields: [String: JSONValue], _ key: String, at path: String) throws(Unreadable) -> String? {
        switch fields[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw Unreadable("wrong type at \(path).\(key)")
        }
    }

    private static func headers(_ value: JSONValue?, at path: String) throws(Unreadable) -> [HTTPHeader] {
        switch value {
        case nil, .null?: return []
        case .object(let members)?:
            return try members.sorted { $0.key < $1.key }.map { member throws(Unreadable) in
                guard case .string(let text) = member.value else { throw Unreadable("wrong type at \(path).\(member.key)") }
                return HTTPHeader(member.key, text)
            }
        default: throw Unreadable("wrong type at \(path)")
        }
    }

    private static func instant(_ value: JSONValue?, at path: String) throws(Unreadable) -> Date? {
        switch value {
        case nil, .null?: return nil
        case .int(let seconds)?: return Date(timeIntervalSince1970: Double(seconds))
        case .double(let seconds)?: return Date(timeIntervalSince1970: seconds)
        case .string(let text)?:
            if let seconds = Double(text) { return Date(timeIntervalSince1970: seconds) }
            if let date = RFC3339Instant.parse(text) { return date }
            throw Unreadable("\(path) is neither RFC 3339 nor epoch seconds")
        default: throw Unreadable("wrong type at \(path)")
        }
    }
}
