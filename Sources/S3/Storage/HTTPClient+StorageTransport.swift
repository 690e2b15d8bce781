import Foundation
import HTTPTransport

extension HTTPClient: StorageTransport {
    /// `upload(fromFile:range:request:beforeStart:progress:)` without a start check.
    func upload(
        fromFile path: String, range: Range<Int64>?, request: HTTPRequest,
        progress: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void
    ) async throws -> HTTPResponse {
        try await upload(fromFile: path, range: range, request: request, beforeStart: nil, progress: progress)
    }
}
