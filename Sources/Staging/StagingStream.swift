import Foundation
import S3
import UploadEngine

/// What every staged byte goes through as it arrives, whatever the source: the size limit, the SHA-256, and the
/// content check (the first bytes are sniffed and compared with the declared mime type).
///
/// `@unchecked Sendable`: the mutable state is used by one thread at a time, in sequence. A stream is fed either
/// inside one staging-queue job, or by one download's transfer thread and then finished by the task that awaited
/// that download — whose continuation is resumed only after the transfer ended, which orders every feed before
/// the finish. `sizeLimit` and `declaredType` are immutable.
final class StagingStream: @unchecked Sendable {
    /// The most bytes accepted.
    let sizeLimit: Int64
    /// The job's mime type, if it declared one.
    let declaredType: String?
    private var state = State()

    private struct State {
        var hasher = SHA256Hasher()
        var total: Int64 = 0
        var prefix: [UInt8] = []
        var judged = false
        var signature: ContentSignature?
    }

    /// What the stream learned once the bytes are all in.
    struct Summary: Sendable, Hashable {
        /// Bytes received.
        var size: Int64
        /// Their hex SHA-256.
        var sha256: String
        /// The format the bytes show, if recognised.
        var signature: ContentSignature?
    }

    /// A stream for one file.
    init(sizeLimit: Int64, declaredType: String?) {
        self.sizeLimit = sizeLimit
        self.declaredType = declaredType
    }

    /// Takes the next chunk; throws `ERR_FILE_SIZE_EXCEEDED` past the limit and `ERR_INVALID_FILE_OBJECT` as soon
    /// as the first bytes contradict the declared type.
    func consume(_ chunk: UnsafeRawBufferPointer) throws(UploadError) {
        state.total += Int64(chunk.count)
        if state.total > sizeLimit { throw Self.sizeExceeded(sizeLimit) }
        state.hasher.update(chunk)
        if !state.judged {
            state.prefix.append(contentsOf: chunk.prefix(ContentSignature.window - state.prefix.count))
            if state.prefix.count >= ContentSignature.window, let verdict = judge(&state) { throw verdict }
        }
    }

    /// Ends the stream: judges content shorter than the sniffing window, and gives the size and digest.
    func finish() throws(UploadError) -> Summary {
        if !state.judged, let verdict = judge(&state) { throw verdict }
        return Summary(size: state.total, sha256: state.hasher.finalizeHex(), signature: state.signature)
    }

    private func judge(_ state: inout State) -> UploadError? {
        state.judged = true
        state.signature = ContentSignature.sniff(state.prefix)
        return Self.contradiction(declared: declaredType, shown: state.signature)
    }

    /// The rejection for a file over `limit`.
    static func sizeExceeded(_ limit: Int64) -> UploadError {
        UploadError(.fileSizeExceeded, "the file exceeds limits.fileSizeMax (\(limit))", retryable: false)
    }

    /// The rejection for a declared type the content contradicts; nil when they agree or either is unknown.
    static func contradiction(declared: String?, shown: ContentSignature?) -> UploadError? {
        guard let declared, let shown, !shown.isCompatible(withDeclared: declared) else { return nil }
        return UploadError(
            .invalidFileObject, "the declared mime type \(declared) contradicts the content, which is \(shown.mimeType)",
            retryable: false)
    }
}
