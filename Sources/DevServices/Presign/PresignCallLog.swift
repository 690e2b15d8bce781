import Synchronization

/// The presign calls recorded so far; appended from connection threads, read from anywhere.
final class PresignCallLog: Sendable {
    private let entries = Mutex<[PresignCall]>([])

    /// Records a call.
    func append(_ call: PresignCall) {
        entries.withLock { $0.append(call) }
    }

    /// Every call, in completion order.
    var calls: [PresignCall] {
        entries.withLock { $0 }
    }
}
