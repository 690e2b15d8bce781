import Foundation
import Synchronization
import UploadEngine
import Worker

/// Shows the demo's events as they happen, one line each, and keeps them for the summary.
final class DemoConsole: EventPublisher {
    private let events = Mutex<[WorkerEvent]>([])
    private let started = Date()

    func publish(_ event: WorkerEvent, sequence: UInt64) {
        events.withLock { $0.append(event) }
        if let line = Self.line(for: event) {
            let elapsed = String(format: "%6.2fs", Date().timeIntervalSince(started))
            print("  \(elapsed)  \(line)")
        }
    }

    func whenDelivered(_ action: @escaping @Sendable () -> Void) { action() }

    var recorded: [WorkerEvent] { events.withLock { $0 } }

    static func line(for event: WorkerEvent) -> String? {
        func name(_ id: String?) -> String { (id ?? "").padding(toLength: 12, withPad: " ", startingAt: 0) }
        switch event {
        case .upload(let upload):
            let file = name(upload.fileId)
            switch upload.kind {
            case .progress(let loaded, let total, let percent):
                let bar = String(repeating: "█", count: percent / 5) + String(repeating: "·", count: 20 - percent / 5)
                return "\(file) \(bar) \(String(format: "%3d", percent))%  \(kib(loaded)) of \(kib(total))"
            case .uploaded(let attachment):
                return "\(file) uploaded   \(attachment.type.rawValue), \(kib(attachment.size)), sha256 \(attachment.sha256.prefix(12))…"
            case .rejected(let error):
                return "\(file) rejected   \(error.code.rawValue): \(error.message)"
            case .failed(let error, let attempt, let willRetry):
                return "\(file) failed     \(error.code.rawValue) on attempt \(attempt)\(willRetry ? ", retrying" : ""): \(error.message)"
            case .removed:
                return "\(file) removed"
            case .completed(let result):
                return "batch \(result.batchId) drained: \(result.successful.count) uploaded, \(result.rejected.count) rejected, \(result.failed.count) failed"
            }
        case .messageSent(let outcome, let type, let fileIds, let id):
            return "message    \(type.rawValue) with \(fileIds.joined(separator: ", ")) sent (id \(id ?? "-"), muid \(outcome.muid.prefix(8))…)"
        case .messageFailed(_, let error, let attempt, let willRetry):
            return "message    failed on attempt \(attempt)\(willRetry ? ", retrying" : ""): \(error.code) \(error.message)"
        case .jobInvalid(_, _, let reason, _, _, _):
            return "job invalid: \(reason)"
        }
    }

    static func kib(_ bytes: Int64) -> String {
        bytes >= 1024 * 1024 ? String(format: "%.1f MiB", Double(bytes) / 1_048_576) : "\(bytes / 1024) KiB"
    }
}
