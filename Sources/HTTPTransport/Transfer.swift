import Foundation
import UploadEngine

#if canImport(Glibc)
import Glibc
#endif

/// One request in flight: its spec, its continuation and everything the libcurl callbacks accumulate.
///
/// `@unchecked Sendable`: until it is submitted only the submitting task touches it; the loop's inbox lock then
/// hands it to the transfer thread, which is its only user from then on (every libcurl callback, the stall check,
/// completion and abort run there). The one member read elsewhere, `id`, is immutable.
final class Transfer: @unchecked Sendable {
    let id: UInt64
    let spec: TransferSpec
    /// Resumed exactly once, by `finish`.
    var continuation: CheckedContinuation<HTTPResponse, any Error>?
    /// Present while the transfer is attached to the multi handle.
    var easy: CurlEasy?
    /// Set by a callback that aborts the transfer, so the result says why instead of libcurl's generic code.
    var failure: HTTPTransportError?
    /// The last time a byte moved in either direction (or the transfer started).
    var lastActivity = ContinuousClock.now

    // The request body.
    var sourceFile: Int32 = -1
    var sourceOffset = 0
    var uploadSize: Int64 = 0

    // The response as it arrives; `status` and `headers` belong to the header block being read.
    var status = 0
    var headers: [HTTPHeader] = []
    var contentLength: Int64?
    var memoryBody = Data()
    var sinkFile: Int32 = -1
    var sinkFileCreated = false
    var received: Int64 = 0

    // Progress bookkeeping.
    var reportedUpload: Int64 = 0
    var movedUp: Int64 = 0
    var movedDown: Int64 = 0

    init(id: UInt64, spec: TransferSpec) {
        self.id = id
        self.spec = spec
    }

    /// When the stall watchdog fires for this transfer, if it has one.
    var stallDeadline: ContinuousClock.Instant? {
        spec.stallTimeout.map { lastActivity + $0 }
    }

    /// The response of a transfer libcurl completed without error.
    func makeResponse() -> Result<HTTPResponse, any Error> {
        guard let easy else {
            return .failure(HTTPTransportError(.transport, "transfer has no handle", retryable: true))
        }
        let finalStatus = easy.responseCode
        let success = (200..<300).contains(finalStatus)
        if case .file(let path, _) = spec.sink, success {
            if !sinkFileCreated, !openSink(path: path) {
                return .failure(failure ?? HTTPTransportError(.localFile, "cannot create \(path)", retryable: false))
            }
            let closed = close(sinkFile)
            sinkFile = -1
            if closed != 0 {
                return .failure(localFileError("cannot write \(path)"))
            }
        }
        if case .upload(let report) = spec.progress {
            let sent = easy.uploadedBytes
            if sent > reportedUpload {
                reportedUpload = sent
                report(sent, uploadSize)
            }
        }
        return .success(HTTPResponse(status: finalStatus, headers: headers, body: memoryBody))
    }

    /// Releases the handle and files and resumes the caller; a failed download leaves no file behind.
    func finish(_ result: Result<HTTPResponse, any Error>) {
        if sourceFile >= 0 {
            close(sourceFile)
            sourceFile = -1
        }
        if sinkFile >= 0 {
            close(sinkFile)
            sinkFile = -1
        }
        if case .failure = result, sinkFileCreated, case .file(let path, _) = spec.sink {
            unlink(path)
            sinkFileCreated = false
        }
        easy = nil
        let waiting = continuation
        continuation = nil
        waiting?.resume(with: result)
    }

    /// Creates (or truncates) the download file, owner-only.
    func openSink(path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            failure = localFileError("cannot create \(path)")
            return false
        }
        sinkFile = descriptor
        sinkFileCreated = true
        return true
    }

    func localFileError(_ what: String) -> HTTPTransportError {
        let reason = String(cString: strerror(errno))
        return HTTPTransportError(.localFile, "\(what): \(reason)", retryable: false)
    }
}
