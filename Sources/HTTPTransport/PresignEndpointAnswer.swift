import Foundation
import UploadEngine

/// A presign endpoint's answer (`docs/wire-format.md#presign-endpoint`): `{"files":[…]}`, each entry either
/// `{"fileId","uploadUrl","method","headers","fileUrl","expiresAt"}` or `{"fileId","error":{"code","message"}}`.
///
/// `method` defaults to `PUT`, `headers` to none (a JSON object, so their order is not kept: they are sorted by
/// name), `expiresAt` to never; it is ISO-8601 (fractional seconds allowed) or epoch seconds.
struct PresignEndpointAnswer: Decodable, Sendable {
    /// One file's answer.
    struct Entry: Decodable, Sendable {
        /// The file the entry is about.
        var fileId: String
        /// A target, or a refusal with the service's code.
        var outcome: PresignOutcome

        private enum Keys: String, CodingKey {
            case fileId, uploadUrl, method, headers, fileUrl, expiresAt, error
        }

        private struct Refusal: Decodable {
            var code: String?
            var message: String?
        }

        /// Reads either shape; an entry with neither `error` nor `uploadUrl`/`fileUrl` is unreadable.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            fileId = try container.decode(String.self, forKey: .fileId)
            if let refusal = try container.decodeIfPresent(Refusal.self, forKey: .error) {
                let code = refusal.code.flatMap { $0.isEmpty ? nil : UploadErrorCode($0) } ?? .presignedURLFailed
                let message = refusal.message.flatMap { $0.isEmpty ? nil : $0 } ?? "the presign service refused the file"
                outcome = .refused(UploadError(code, message, retryable: false))
                return
            }
            let headers = try container.decodeIfPresent([String: String].self, forKey: .headers) ?? [:]
            let method = try container.decodeIfPresent(String.self, forKey: .method)
            outcome = .target(
                UploadTarget(
                    uploadURL: try container.decode(String.self, forKey: .uploadUrl),
                    method: method.map { $0.isEmpty ? "PUT" : $0.uppercased() } ?? "PUT",
                    headers: headers.sorted { $0.key < $1.key }.map { HTTPHeader($0.key, $0.value) },
                    fileURL: try container.decode(String.self, forKey: .fileUrl),
                    expiresAt: try Self.decodeInstant(container, .expiresAt)))
        }

        private static func decodeInstant(_ container: KeyedDecodingContainer<Keys>, _ key: Keys) throws -> Date? {
            guard container.contains(key), try !container.decodeNil(forKey: key) else { return nil }
            if let seconds = try? container.decode(Double.self, forKey: key) {
                return Date(timeIntervalSince1970: seconds)
            }
            let text = try container.decode(String.self, forKey: key)
            if let seconds = Double(text) { return Date(timeIntervalSince1970: seconds) }
            for style in [Date.ISO8601FormatStyle(includingFractionalSeconds: true), Date.ISO8601FormatStyle()] {
                if let date = try? Date(text, strategy: style) { return date }
            }
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "expiresAt is neither ISO-8601 nor epoch seconds")
        }
    }

    /// The entries, in the service's order.
    var files: [Entry]
}
