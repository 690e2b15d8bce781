import HTTPTransport
import UploadEngine

extension HTTPClient {
    /// Streams staged bytes as the request body: a staging copy opened by its path, an open source read in place
    /// (its size the one it was staged with).
    func upload(
        _ bytes: StagedBytes, range: Range<Int64>? = nil, request: HTTPRequest,
        beforeStart: (@Sendable () throws -> Void)? = nil,
        progress: (@Sendable (_ sent: Int64, _ total: Int64) -> Void)? = nil
    ) async throws -> HTTPResponse {
        switch bytes {
        case .copy(let path):
            try await upload(fromFile: path, range: range, request: request, beforeStart: beforeStart, progress: progress)
        case .source(let source):
            try await upload(reading: SourceBody(source: source), range: range, request: request, beforeStart: beforeStart,
                             progress: progress)
        }
    }
}

/// An open source as a transport body: the engine's handle read through the transport's protocol.
private final class SourceBody: RandomAccessBody {
    let source: any OpenSourceFile

    init(source: any OpenSourceFile) { self.source = source }

    var size: Int64 { source.size }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        try source.read(into: buffer, at: offset)
    }
}
