import Foundation

#if canImport(Glibc)
import Glibc
import WireFormat
#endif

/// One request in flight: its spec, its continuation and everything the libcurl callbacks accumulate.
///
/// `@unchecked Sendable`: until it is submitted only the submitting task touches it; the loop's inbox lock then
/// hands it to the transfer thread, which is its only user from then on (every libcurl callback, the stall check,
/// completion and abort run there). The one member read elsewhere, `id`, is immutable.
final class Transfer: @unchecked Sendable {
    /// Unique per loop; how a cancel finds the transfer.
    let id: UInt64
    /// What to do.
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
    /// The file being uploaded, opened by the transfer, or -1 (an open source is read through the spec).
    var sourceFile: Int32 = -1
    /// How far an in-memory body has been handed to libcurl.
    var sourceOffset = 0
    /// The body's size, announced as `Content-Length`.
    var uploadSize: Int64 = 0
    /// Where the body starts in the file (the range's start; 0 for a whole file).
    var sourceBase: Int64 = 0
    /// Body bytes of the file not yet handed to libcurl.
    var sourceRemaining: Int64 = 0

    // The response as it arrives; `status` and `headers` belong to the header block being read.
    /// The status of the header block being read.
    var status = 0
    /// The fields of the header block being read.
    var headers: [HTTPHeader] = []
    /// `Content-Length` of the header block being read.
    var contentLength: Int64?
    /// The body kept in memory (all of it, or a diagnostic prefix).
    var memoryBody = Data()
    /// The open download file, or -1.
    var sinkFile: Int32 = -1
    /// Whether the download file exists and must be removed on failure.
    var sinkFileCreated = false
    /// Bytes written to the download file.
    var received: Int64 = 0

    // Progress bookkeeping.
    /// The last `sent` reported, so reports only go up.
    var reportedUpload: Int64 = 0
    /// Set while the body waits for its rate caps: libcurl was told to pause, and the loop resumes it then.
    var pausedUntil: ContinuousClock.Instant?
    /// The rate caps granted nothing the last time the body asked: a pause now follows a pause.
    var heldByCaps = false
    /// Upload bytes libcurl last reported, to notice movement.
    var movedUp: Int64 = 0
    /// Download bytes libcurl last reported, to notice movement.
    var movedDown: Int64 = 0

    /// A transfer not yet submitted.
    init(id: UInt64, spec: TransferSpec) {
        self.id = id
        self.spec = spec
    }

    /// When the stall watchdog fires for this transfer, if it has one: never while it is paused by a rate cap (a
    /// throttled transfer is not a stalled one; its clock starts again when it resumes).
    var stallDeadline: ContinuousClock.Instant? {
        guard pausedUntil == nil else { return nil }
        return spec.stallTimeout.map { lastActivity + $0 }
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

    /// A `.localFile` error for the current `errno`.
    func localFileError(_ what: String) -> HTTPTransportError {
        let reason = String(cString: strerror(errno))
        return HTTPTransportError(.localFile, "\(what): \(reason)", retryable: false)
    }
}
