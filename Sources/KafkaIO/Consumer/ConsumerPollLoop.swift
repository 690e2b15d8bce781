import CRdKafka
import Foundation

/// The consumer's poll thread: the only place that polls, pauses, commits and closes the consumer handle.
///
/// Each round it runs queued commands, matches librdkafka's pause state to what the application and the record
/// buffer want, commits changed watermarks when due, then polls one batch and hands it to the buffer in a single
/// step. Rebalance and commit callbacks run inside the polls, on this thread; while the reader is briefly behind
/// (at most `throttlePauseDelay`) the thread does not poll, so they wait that long at most.
final class ConsumerPollLoop: @unchecked Sendable {
    // @unchecked: created by KafkaConsumer.init and handed to the poll thread; from then on only that thread
    // touches it (`lastCommit`, `throttledSince` and the held commits and closes are its only mutable state).
    private let client: RDKafkaClient
    private let queue: RDQueue
    private let shared: ConsumerShared
    private var lastCommit = ContinuousClock.now
    /// Since when the record buffer has been full; nil while it is not.
    private var throttledSince: ContinuousClock.Instant?
    /// Commits and closes asked for while the member rejoins its group, with when they were asked for: they wait,
    /// polling on, for the rejoin to end (see ``rejoinWait``).
    private typealias HeldCommit = (promise: CompletionPromise<Void>, since: ContinuousClock.Instant)
    private var heldCommits: [HeldCommit] = []
    private var heldClosers: [CompletionPromise<Void>] = []
    private var closeAskedAt: ContinuousClock.Instant?

    /// How long a commit or a close waits for a rejoin to end. A commit sent while the member rejoins carries the
    /// old generation: the broker answers `ILLEGAL_GENERATION`, librdkafka 2.0.2 takes that for a lost assignment,
    /// and a close soon after can then abort the process (`rd_kafka_cgrp_terminated: assert:
    /// !rd_kafka_assignment_in_progress`, seen when two workers of three stopped together). A rejoin takes a few
    /// round trips; one that lasts longer gives up the commit (its records are replayed by the partitions' next
    /// owner, and not applied twice) rather than risk it.
    static let rejoinWait: Duration = .seconds(3)

    /// A loop over `client`, blocking on its consumer `queue`.
    init(client: RDKafkaClient, queue: RDQueue, shared: ConsumerShared) {
        self.client = client
        self.queue = queue
        self.shared = shared
    }

    /// Polls until a close command arrives, then commits, leaves the group and finishes the streams.
    func run() {
        client.withClientPointer { handle in
            queue.withQueuePointer { queuePointer in
                loop(handle, queuePointer)
            }
        }
    }

    private func loop(_ handle: OpaquePointer, _ queuePointer: OpaquePointer) {
        let options = shared.options
        let timeout = options.pollTimeout.clampedMilliseconds
        while true {
            let (commands, wantsPause) = shared.state.withLock { state in
                defer { state.commands = [] }
                return (state.commands, state.wantsPause)
            }
            for command in commands {
                switch command {
                case .commit(let promise):
                    heldCommits.append((promise, .now))
                case .committed(let partitions, let deadline, let wait, let promise):
                    if let result = committedOffsets(handle, partitions, deadline: deadline, wait: wait) {
                        promise.fulfill(result)
                    } else {
                        // Straight back into the inbox, not through `send`: this thread takes it on its next pass,
                        // and a close it performs meanwhile still fails it, where `send` could refuse and drop it.
                        let again = ConsumerCommand.committed(partitions, deadline: deadline, wait: wait * 2, promise)
                        shared.state.withLock { $0.commands.append(again) }
                    }
                case .close(let promise):
                    heldClosers.append(promise)
                    closeAskedAt = closeAskedAt ?? .now
                }
            }
            let steady = shared.state.withLock { $0.joinSteady }
            releaseHeldCommits(handle, queuePointer, steady: steady)
            if let asked = closeAskedAt, steady || asked.duration(to: .now) >= Self.rejoinWait {
                close(handle, heldClosers, steady: steady)
                return
            }
            // A full buffer first only stops the taking of records; fetching pauses if it stays full.
            let throttled = shared.buffer.isThrottled
            throttledSince = throttled ? (throttledSince ?? .now) : nil
            let holdingOff = throttledSince.map { $0.duration(to: .now) < options.throttlePauseDelay } ?? false
            applyPause(handle, wanted: wantsPause || (throttled && !holdingOff))
            if let interval = options.commitInterval, lastCommit.duration(to: .now) >= interval,
               !shared.state.withLock({ $0.isRejoining(at: .now) }) {
                commit(handle, queuePointer, onlyChanged: true, waiter: nil)
            }
            if holdingOff && !wantsPause {
                // Short waits: commands and commits are looked at every round.
                shared.buffer.waitForDrain(upTo: .milliseconds(20))
                continue
            }
            pollBatch(handle, timeout: timeout, limit: options.pollBatchSize)
        }
    }

    private func pollBatch(_ handle: OpaquePointer, timeout: Int32, limit: Int) {
        guard let first = rd_kafka_consumer_poll(handle, timeout) else { return }
        var records: [KafkaRecord] = []
        records.reserveCapacity(min(limit, 256))
        var message: UnsafeMutablePointer<rd_kafka_message_t>? = first
        // A poll's records mostly share a topic: its name is read from C once per run of them, not per record.
        var topic: (handle: OpaquePointer, name: String)?
        while let current = message {
            if current.pointee.err == RD_KAFKA_RESP_ERR_NO_ERROR {
                let handle = current.pointee.rkt!
                if topic?.handle != handle { topic = (handle, String(cString: rd_kafka_topic_name(handle))) }
                records.append(KafkaRecord(message: current, topic: topic?.name))
            } else {
                report(current.pointee.err, handle: handle, message: current)
            }
            rd_kafka_message_destroy(current)
            message = records.count < limit ? rd_kafka_consumer_poll(handle, 0) : nil
        }
        guard !records.isEmpty else { return }
        let accepted = shared.state.withLock { $0.ledger.accept(records) }
        shared.buffer.push(accepted)
    }

    private func report(_ error: rd_kafka_resp_err_t, handle: OpaquePointer,
                        message: UnsafeMutablePointer<rd_kafka_message_t>) {
        if error == RD_KAFKA_RESP_ERR__PARTITION_EOF { return }
        if let fatal = KafkaError.fatal(on: handle) {
            shared.events.yield(.error(fatal))
            return
        }
        let detail = rd_kafka_message_errstr(message).map { String(cString: $0) }
        shared.events.yield(.error(KafkaError(error, detail: detail)))
    }

    private func applyPause(_ handle: OpaquePointer, wanted: Bool) {
        let applied = shared.state.withLock { $0.pauseApplied }
        guard wanted != applied else { return }
        var assignment: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        guard rd_kafka_assignment(handle, &assignment) == RD_KAFKA_RESP_ERR_NO_ERROR, let assignment else { return }
        defer { rd_kafka_topic_partition_list_destroy(assignment) }
        let error = wanted ? rd_kafka_pause_partitions(handle, assignment) : rd_kafka_resume_partitions(handle, assignment)
        if error == RD_KAFKA_RESP_ERR_NO_ERROR {
            shared.state.withLock { $0.pauseApplied = wanted }
            if !wanted { wakeFetchers(handle) }
        } else {
            shared.events.yield(.error(KafkaError(error)))
        }
    }

    /// librdkafka 2.0 resumes a partition without waking the broker thread that fetches it, and a broker thread
    /// whose partitions are all paused sleeps up to a second between looks: resumed partitions were fetched again
    /// up to a second late (in 17 of 150 small bench runs, the part of the 2,000-job burst not fetched before the
    /// first pause came 1.07 s later). A seek wakes that thread. It goes to where reading stopped, which is where
    /// the resume reads next, and its version barrier drops what the resume fetched meanwhile: nothing is skipped
    /// or delivered twice. A partition that delivered nothing since its assignment has no such position and only
    /// resumes.
    private func wakeFetchers(_ handle: OpaquePointer) {
        let positions = shared.state.withLock { $0.ledger.readPositions }
        guard !positions.isEmpty else { return }
        let list = RDTopicPartitionList(positions.map { ($0.0, $0.1) })
        // Asynchronous (no timeout): errors would only say a partition is not being fetched, which the seek
        // cannot change; the resume stands either way.
        if let error = list.withListPointer({ rd_kafka_seek_partitions(handle, $0, 0) }) {
            rd_kafka_error_destroy(error)
        }
    }

    private func commit(_ handle: OpaquePointer, _ queuePointer: OpaquePointer, onlyChanged: Bool,
                        waiter: CompletionPromise<Void>?) {
        lastCommit = .now
        let positions = shared.state.withLock { $0.ledger.takeCommitPositions(onlyChanged ? .changed : .all) }
        guard !positions.isEmpty else {
            waiter?.fulfill(.success(()))
            return
        }
        shared.commitAsynchronously(positions, client: handle, queue: queuePointer, waiter: waiter)
    }

    /// One try at reading committed offsets, of at most `wait`; nil: it timed out before the deadline, ask again
    /// (with twice the wait, so a slow coordinator still gets to answer).
    ///
    /// While the group has no coordinator, `rd_kafka_committed` waits for a broker to change state before it asks
    /// again, and a coordinator found over a connection that is already up changes none: one call with the whole
    /// timeout can sit it out although the answer was there a moment later. Shorter tries bound that, and the poll
    /// loop serves the group in between.
    private func committedOffsets(_ handle: OpaquePointer, _ partitions: [TopicPartition], deadline: ContinuousClock.Instant,
                                  wait: Duration) -> Result<[TopicPartition: Int64], KafkaError>? {
        let remaining = ContinuousClock.now.duration(to: deadline)
        let list = RDTopicPartitionList(partitions.map { ($0, nil) })
        let error = list.withListPointer { rd_kafka_committed(handle, $0, min(remaining, wait).clampedMilliseconds) }
        if error == RD_KAFKA_RESP_ERR__TIMED_OUT, ContinuousClock.now < deadline { return nil }
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR else { return .failure(KafkaError(error)) }
        var result: [TopicPartition: Int64] = [:]
        for entry in list.entries where entry.offset >= 0 {
            result[entry.partition] = entry.offset
        }
        return .success(result)
    }

    /// The length of the first try at reading committed offsets; each try after a timeout is twice as long.
    static let firstCommittedTry = Duration.milliseconds(250)

    /// Sends the held commits once the member is steady; refuses those that waited ``rejoinWait`` in vain.
    private func releaseHeldCommits(_ handle: OpaquePointer, _ queuePointer: OpaquePointer, steady: Bool) {
        guard !heldCommits.isEmpty else { return }
        let now = ContinuousClock.now
        var waiting: [HeldCommit] = []
        for held in heldCommits {
            if steady {
                commit(handle, queuePointer, onlyChanged: false, waiter: held.promise)
            } else if held.since.duration(to: now) >= Self.rejoinWait {
                held.promise.fulfill(.failure(Self.rejoining))
            } else {
                waiting.append(held)
            }
        }
        heldCommits = waiting
    }

    private static let rejoining = KafkaError(.groupRejoining, "not committed: the consumer group is still rebalancing",
                                              isRetryable: true)

    private func close(_ handle: OpaquePointer, _ closers: [CompletionPromise<Void>], steady: Bool) {
        for held in heldCommits { held.promise.fulfill(.failure(Self.rejoining)) }
        heldCommits = []
        var failure = steady ? shared.commitBeforeRelease(nil, client: handle) : Self.rejoining
        if let failure { shared.events.yield(.error(failure)) }
        // Leaves the group; the revoke of the remaining partitions runs the rebalance callback on this thread.
        let closeError = rd_kafka_consumer_close(handle)
        if failure == nil, closeError != RD_KAFKA_RESP_ERR_NO_ERROR {
            failure = KafkaError(closeError)
        }
        shared.finishAll()
        for closer in closers {
            closer.fulfill(failure.map { .failure($0) } ?? .success(()))
        }
    }
}
