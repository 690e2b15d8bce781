import Synchronization

/// The progress of a multipart upload: the sum over its parts of the most each part has sent, reported with every
/// report of a part.
///
/// A part that fails and starts over keeps its high mark until the new attempt passes it, so the sum never goes
/// backwards, and it reaches the object's size exactly when every part is through. A part's report that does not
/// pass its mark (bytes sent again, or a transfer waiting for a rate cap) repeats the sum unchanged: the engine's
/// stall clock counts only while nothing happens at all. Reports are made under the lock, so they arrive in
/// order whichever thread the parts report on.
final class S3MultipartProgress: Sendable {
    private struct State {
        var highs: [Int: Int64] = [:]
        var sum: Int64 = 0
        /// Parts hashing their bytes or with a request in flight: while any is, only their own reports count.
        var busy = 0
    }

    /// The object's size, the `total` of every report.
    let total: Int64
    private let report: @Sendable (_ sent: Int64, _ total: Int64) -> Void
    private let state = Mutex(State())

    /// Progress of an object of `total` bytes, reported to `report`.
    init(total: Int64, report: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void) {
        self.total = total
        self.report = report
    }

    /// Parts storage already has, of these sizes (an upload resumed): reported at once, so progress after a resume
    /// starts at the bytes stored, never at 0. Their numbers are never recorded again.
    func seed(_ storedSizes: [Int64]) {
        state.withLock { state in
            let stored = storedSizes.reduce(0, +)
            guard stored > state.sum else { return }
            state.sum = stored
            report(state.sum, total)
        }
    }

    /// Part `part` has sent `sent` bytes in its current attempt.
    func record(part: Int, sent: Int64) {
        state.withLock { state in
            let high = state.highs[part, default: 0]
            if sent > high {
                state.highs[part] = sent
                state.sum += sent - high
            }
            report(state.sum, total)
        }
    }

    /// The upload is waiting on storage, not sending: the sum so far, again — unless a part is at work meanwhile. A
    /// part that hangs (its request, or a read of its source that holds up the transfer thread) must not have its
    /// silence covered by another part's wait.
    func waiting() {
        state.withLock { state in
            guard state.busy == 0 else { return }
            report(state.sum, total)
        }
    }

    /// Runs `work`, a part's hashing or one of its requests, counted as a part at work.
    func working<Result>(_ work: () async throws -> Result) async throws -> Result {
        state.withLock { $0.busy += 1 }
        defer { state.withLock { $0.busy -= 1 } }
        return try await work()
    }
}
