import CCurl
import Foundation
import Synchronization

/// The checks one download runs on the transfer thread: the address of every connection it makes or reuses
/// (every redirect hop included), and every chunk of a 2xx body before it is written.
///
/// Created by `HTTPClient.download` on the caller's task, consulted on the transfer thread, read back by the
/// caller after the transfer ended; what the thread learns is kept behind a mutex.
final class DownloadGuard: Sendable {
    /// The addresses allowed; nil checks none.
    let policy: AddressPolicy?
    /// Sees each body chunk; throwing aborts the download with that error.
    private let inspector: (@Sendable (UnsafeRawBufferPointer) throws -> Void)?
    private let findings = Mutex(Findings())

    private struct Findings {
        var refusal: String?
        var inspectionError: (any Error)?
    }

    /// A guard for one download.
    init(policy: AddressPolicy?, inspector: (@Sendable (UnsafeRawBufferPointer) throws -> Void)?) {
        self.policy = policy
        self.inspector = inspector
    }

    /// Whether a connection to `address` (nil: not an IP address at all) may be made or used for a URL naming
    /// `host`; a refusal is remembered so the failure can say why.
    func admit(_ address: AddressPolicy.IPAddress?, host: String?) -> Bool {
        guard let policy else { return true }
        let refusal: String? =
            if let address { policy.refusal(of: address, host: host) } else { "a connection that is not to an IP address" }
        guard let refusal else { return true }
        findings.withLock { if $0.refusal == nil { $0.refusal = "refused to connect: \(refusal)" } }
        return false
    }

    /// Runs the inspector on a body chunk; false aborts the download (the error is kept).
    func inspect(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard let inspector else { return true }
        do {
            try inspector(chunk)
            return true
        } catch {
            findings.withLock { if $0.inspectionError == nil { $0.inspectionError = error } }
            return false
        }
    }

    /// The error a failed download reports: the inspector's own error, the address refusal, a refused or
    /// excessive redirect, or the transport's error unchanged.
    func explain(_ error: HTTPTransportError) -> any Error {
        let found = findings.withLock { ($0.inspectionError, $0.refusal) }
        if let inspection = found.0 { return inspection }
        if let refusal = found.1, error.code == .transport {
            return HTTPTransportError(.addressRefused, refusal, curlCode: error.curlCode, retryable: false)
        }
        guard policy != nil, error.code == .transport || error.code == .invalidURL, let curlCode = error.curlCode else {
            return error
        }
        // The first URL was checked before the transfer began, so a URL libcurl cannot use now is a redirect's.
        if curlCode == Int(CURLE_UNSUPPORTED_PROTOCOL.rawValue) || curlCode == Int(CURLE_URL_MALFORMAT.rawValue) {
            return HTTPTransportError(
                .redirectRefused, "redirected to a URL that is not http(s) or does not parse: \(error.message)",
                curlCode: curlCode, retryable: false)
        }
        if curlCode == Int(CURLE_TOO_MANY_REDIRECTS.rawValue) {
            return HTTPTransportError(
                .tooManyRedirects, "more than \(Self.maximumRedirects) redirects", curlCode: curlCode, retryable: false)
        }
        return error
    }

    /// Redirects a guarded download follows at most.
    static let maximumRedirects = 3
}
