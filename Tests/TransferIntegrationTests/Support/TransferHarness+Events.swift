import Foundation
import UploadEngine

extension TransferHarness {
    /// A `failed` event's parts.
    struct Failure: Sendable {
        var error: UploadError
        var attempt: Int
        var willRetry: Bool
    }

    /// A `progress` event's parts.
    struct Progress: Sendable, Equatable {
        var loaded: Int64
        var total: Int64
        var percent: Int
    }

    /// The `failed` events of a file, in order.
    func failures(of fileId: String) -> [Failure] {
        recorder.events.compactMap { event in
            guard event.fileId == fileId, case .failed(let error, let attempt, let willRetry) = event.kind else {
                return nil
            }
            return Failure(error: error, attempt: attempt, willRetry: willRetry)
        }
    }

    /// The `rejected` events of a file, in order.
    func rejections(of fileId: String) -> [UploadError] {
        recorder.events.compactMap { event in
            guard event.fileId == fileId, case .rejected(let error) = event.kind else { return nil }
            return error
        }
    }

    /// The `progress` events of a file, in order.
    func progress(of fileId: String) -> [Progress] {
        recorder.events.compactMap { event in
            guard event.fileId == fileId, case .progress(let loaded, let total, let percent) = event.kind else {
                return nil
            }
            return Progress(loaded: loaded, total: total, percent: percent)
        }
    }

    /// The attachment of a file's `uploaded` event.
    func attachment(of fileId: String) -> Attachment? {
        recorder.events.lazy.compactMap { event -> Attachment? in
            guard event.fileId == fileId, case .uploaded(let attachment) = event.kind else { return nil }
            return attachment
        }.first
    }

    /// Whether a file was reported removed.
    func wasRemoved(_ fileId: String) -> Bool {
        recorder.events.contains { $0.fileId == fileId && $0.kind == .removed }
    }
}
