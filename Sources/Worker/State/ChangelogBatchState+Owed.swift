import UploadEngine

/// One batch's place between its change and the changelog (§4.1 *One owner, in order*), as the writer tracks it
/// while something is owed for the batch: its stage, its records on their way, the records waiting for it.
extension ChangelogBatchState {
    /// A batch settled as a value, boxed: the lifecycle's entries stay a few words each (a batch inline held
    /// kilobytes per batch of a burst, long after, in a table that keeps the capacity of its busiest moment).
    final class SettledBatch: Sendable {
        let batch: UploadBatch
        init(_ batch: UploadBatch) { self.batch = batch }
    }

    /// Where one batch is between its change and the changelog (§4.1 *One owner, in order*): one case at a time,
    /// each carrying what it needs, so a transition cannot leave a flag of an earlier case behind (a tombstone
    /// still owed while `load` read the store's older row; a settled value answered after its partition left).
    enum Stage {
        /// Held by its runner, which `load` is never asked about; `due` while a change waits for the next flush.
        case live(BatchRunner, due: Bool)
        /// Settled as a value, with no runner (a cleared batch is one): what `load` answers until a snapshot at least
        /// this new is stored, since nothing else holds it meanwhile.
        case settling(SettledBatch, due: Bool)
        /// Expired: its tombstone is due or on its way, and `load` answers nothing — not the store's older row —
        /// until the tombstone is stored.
        case expiring(due: Bool)
        /// Nothing held: only records on their way or waiters keep the entry.
        case recorded

        var isDue: Bool {
            switch self {
            case .live(_, let due), .settling(_, let due), .expiring(let due): due
            case .recorded: false
            }
        }
    }

    /// What one flush takes of a batch.
    enum Take {
        case runner(BatchRunner)
        case value(UploadBatch)
        case tombstone
    }

    /// How many entries of the table are recording (``Owed/isRecording``), kept by the entries as they change, so
    /// that reading it (every `/metrics` scrape) does not walk the table under the writer's lock. Entries leave
    /// the table only once done, when they are not recording. Changed only under that lock.
    final class RecordingTally {
        var count = 0
    }

    /// One batch while something is owed for it: its stage, and the records of it on their way.
    ///
    /// A class: every change of every batch updates its entry under the writer's lock, and a value in the table is
    /// changed through the dictionary's in-place access, which allocated on each call (twenty-odd times a job).
    /// Read and changed only under that lock.
    final class Owed {
        var partition: Int32
        var stage: Stage = .recorded { didSet { retally() } }
        /// Snapshots of the batch produced and not yet delivered.
        var inFlight = 0 { didSet { retally() } }
        /// The newest version of the current life delivered while this entry lived.
        var delivered = -1
        /// Counts the batch's lives while the entry lasts: an expired batch made again starts at version 1, and its
        /// partition leaving ends what this worker recorded of it. A record of an earlier life, delivered late,
        /// says nothing about the versions of this one.
        var life = 0
        /// Records of the batch handed to the producer so far, snapshots and tombstones: a record acknowledged
        /// without a place is produced again only while none went out after it (else the later one stands for it).
        var handed = 0
        var waiters: [(version: Int, action: @Sendable () -> Void)] = []
        /// Since when a flush put off the snapshot of the batch still at work (``ChangelogBatchState/inProgressDelay``).
        /// Not due meanwhile: a change, a record waiting for it, its partition being written out or the delay
        /// running out makes it due again.
        var deferred: ContinuousClock.Instant? { didSet { retally() } }
        /// The state version of the last snapshot taken of its runner while this entry lived: news newer than it is
        /// worth a snapshot at once.
        var takenVersion: Int?
        private let tally: RecordingTally
        /// Whether `tally` counts this entry now.
        private var tallied = false

        init(partition: Int32, tally: RecordingTally) {
            self.partition = partition
            self.tally = tally
        }

        private func retally() {
            let recording = isRecording
            guard recording != tallied else { return }
            tallied = recording
            tally.count += recording ? 1 : -1
        }

        var isDone: Bool {
            guard inFlight == 0, waiters.isEmpty, deferred == nil else { return false }
            switch stage {
            case .live(_, let due): return !due
            case .recorded: return true
            case .settling, .expiring: return false
            }
        }

        /// What a record waiting for a version must still wait for: something due or on its way.
        var isRecording: Bool { stage.isDue || inFlight > 0 || deferred != nil }

        /// Moves to `stage` for a batch of `partition`; true when that made a snapshot or tombstone due.
        func enter(_ stage: Stage, partition: Int32) -> Bool {
            self.partition = partition
            if case .expiring = self.stage {
                if case .expiring = stage {} else { startLife() }
            }
            // Only a runner's snapshot is put off: a value or a tombstone is written at the next flush.
            if case .live = stage {} else { deferred = nil }
            let wasDue = self.stage.isDue
            self.stage = stage
            return !wasDue && stage.isDue
        }

        /// The flush takes what is due: it is on its way from now on.
        func take() -> Take? {
            let taken: Take
            switch stage {
            case .live(let runner, true): taken = .runner(runner); stage = .live(runner, due: false); deferred = nil
            case .settling(let settled, true): taken = .value(settled.batch); stage = .settling(settled, due: false)
            case .expiring(true): taken = .tombstone; stage = .expiring(due: false)
            default: return nil
            }
            inFlight += 1
            return taken
        }

        /// A runner's snapshot could not be taken yet: due again, unless a later change took its place meanwhile.
        /// True when it became due.
        func untake(_ runner: BatchRunner) -> Bool {
            inFlight -= 1
            guard case .live(_, false) = stage else { return false }
            stage = .live(runner, due: true)
            return true
        }

        /// A record of the batch ended: delivered at `version` and stored (nil when a newer record stands for it).
        /// A settled value or an expiry is over once nothing of it is owed.
        func finish(delivered version: Int?, life: Int) {
            inFlight -= 1
            if let version, life == self.life { delivered = max(delivered, version) }
            switch stage {
            case .settling(let settled, false) where delivered >= settled.batch.stateVersion: stage = .recorded
            case .expiring(false) where inFlight == 0: stage = .recorded
            default: break
            }
        }

        /// The waiters that records delivered so far answer: all once nothing is due or on its way.
        func answered() -> [@Sendable () -> Void] {
            guard !stage.isDue, !waiters.isEmpty else { return [] }
            let delivered = self.delivered
            if inFlight == 0 || waiters.allSatisfy({ $0.version <= delivered }) {
                defer { waiters = [] }
                return waiters.map(\.action)
            }
            defer { waiters.removeAll { $0.version <= delivered } }
            return waiters.filter { $0.version <= delivered }.map(\.action)
        }

        /// The batch's partition left this worker: nothing more is taken of it (a snapshot still due would carry no
        /// epoch of this worker's), no settled value is answered from memory, and records waiting for it are not
        /// answered — they stay uncommitted, for the next owner to replay.
        func release() {
            stage = .recorded
            waiters = []
            deferred = nil
            startLife()
        }

        /// A flush put the runner's snapshot off: not due until something wakes it — unless a newer change made it
        /// due again meanwhile, and the flush that takes that one decides afresh.
        func putOff(since: ContinuousClock.Instant) {
            inFlight -= 1
            deferred = since
        }

        /// Makes a put-off snapshot due again; true when it became due (the caller lists it).
        func wake() -> Bool {
            guard deferred != nil, case .live(let runner, false) = stage else { return false }
            stage = .live(runner, due: true)
            return true
        }

        private func startLife() {
            life += 1
            delivered = -1
        }
    }
}
