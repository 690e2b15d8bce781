/// A misbehaviour a dev service can be told to show, for tests of clients' failure handling.
///
/// HTTP faults (`serverError` … `trickleRequestBody`) apply to any service; the presign faults (`expiredURLs` …
/// `refuseFile`) only to `PresignService`.
public enum Fault: Sendable, Hashable {
    /// Answer this status without handling the request (a request body is read and discarded first), with
    /// `Retry-After: <seconds>` when given.
    case serverError(status: Int = 503, retryAfter: Int? = nil)
    /// Close the connection, without an answer, once this many body bytes have been read (0: right after the
    /// head). A shorter body is answered normally.
    case dropConnection(afterBodyBytes: Int = 0)
    /// Stop reading once this many body bytes have been read (0: right after the head), or before answering if the
    /// body is shorter; resume after `duration`, when the plan's stalls are released, or when the service stops.
    case stall(afterBodyBytes: Int = 0, duration: Duration? = nil)
    /// Send the response body at about this many bytes per second.
    case trickleResponse(bytesPerSecond: Int)
    /// Read the request body at about this many bytes per second.
    case trickleRequestBody(bytesPerSecond: Int)
    /// Presign: sign upload URLs that have already expired (and report a past `expiresAt`).
    case expiredURLs
    /// Presign: answer this string as the upload URL.
    case malformedURLs(url: String = "ht!tp://bad url")
    /// Presign: fail calls that carry more than one file as a whole with this status; one-file calls succeed.
    case failMultiFileCalls(status: Int = 500)
    /// Presign: refuse the file with this per-file error.
    case refuseFile(code: String = "ERR_PRESIGNED_URL_FAILED", message: String = "refused by the presign service")

    /// The fault's kind, without its parameters.
    public var kind: Kind {
        switch self {
        case .serverError: .serverError
        case .dropConnection: .dropConnection
        case .stall: .stall
        case .trickleResponse: .trickleResponse
        case .trickleRequestBody: .trickleRequestBody
        case .expiredURLs: .expiredURLs
        case .malformedURLs: .malformedURLs
        case .failMultiFileCalls: .failMultiFileCalls
        case .refuseFile: .refuseFile
        }
    }

    /// A fault's kind, for counting firings.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `Fault.serverError`.
        case serverError
        /// `Fault.dropConnection`.
        case dropConnection
        /// `Fault.stall`.
        case stall
        /// `Fault.trickleResponse`.
        case trickleResponse
        /// `Fault.trickleRequestBody`.
        case trickleRequestBody
        /// `Fault.expiredURLs`.
        case expiredURLs
        /// `Fault.malformedURLs`.
        case malformedURLs
        /// `Fault.failMultiFileCalls`.
        case failMultiFileCalls
        /// `Fault.refuseFile`.
        case refuseFile

        /// The kinds any HTTP service applies around its handler.
        static let transport: Set<Kind> = [.serverError, .dropConnection, .stall, .trickleResponse, .trickleRequestBody]
        /// The kinds the presign service applies per file.
        static let perFile: Set<Kind> = [.expiredURLs, .malformedURLs, .refuseFile]
    }
}
