import Foundation
import HTTPTransport
import UploadEngine

extension HTTPClient: StorageTransport {
    /// `upload(_:range:request:beforeStart:progress:)` without a start check.
    func upload(
        _ bytes: StagedBytes, range: Range<Int64>?, request: HTTPRequest,
        progress: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void
    ) async throws -> HTTPResponse {
        try await upload(bytes, range: range, request: request, beforeStart: nil, progress: progress)
    }
}
