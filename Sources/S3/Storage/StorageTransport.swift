import Foundation
import HTTPTransport
import UploadEngine

/// The HTTP calls S3 storage makes: small exchanges and uploads of a file's byte range.
///
/// `HTTPClient` is the implementation; the seam exists so tests can put faults between the storage logic and a
/// real server (a part that fails once, a completion answered with an error).
protocol StorageTransport: Sendable {
    /// Sends a request with an in-memory body; see `HTTPClient.send`.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
    /// Streams bytes `range` of staged bytes (nil: all of them) as the body; see `HTTPClient.upload`.
    func upload(
        _ bytes: StagedBytes, range: Range<Int64>?, request: HTTPRequest,
        progress: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void
    ) async throws -> HTTPResponse
}
