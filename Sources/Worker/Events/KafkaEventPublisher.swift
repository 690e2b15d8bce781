import FIFOQueueModule
import Foundation
import KafkaIO
import Records
import Synchronization

/// Publishes worker events to the events topic as CloudEvents, keyed by batch id, and tells when everything
/// published so far has been delivered.
///
/// `publish` never blocks (it is called from transfer threads): records go straight to the producer's queue, and
/// only when that queue is full do they wait, in order, in an overflow list that a task drains.
///
/// Every record, handed over at once or from the overflow, has its delivery outcome settled in one place
/// (`settle`): a failed delivery is a lost event, which breaks the publisher for good — every barrier, waiting or
/// asked for later, is told ``EventsOutcome/lost``, so no record is committed past a lost event and nothing waits
/// for a delivery that cannot come — and is reported once through `onLoss`, which the worker treats as fatal.
/// Delivered publish ids are tracked with an ``OffsetWatermark``, so barriers are O(1) amortised.
public final class KafkaEventPublisher: EventPublisher {
    private struct Barrier: Sendable {
        let mark: Int64
        let action: @Sendable (EventsOutcome) -> Void
    }

    private struct State {
        var nextId: Int64 = 0
        /// Publish ids handed out (as "delivered" offsets) and settled (as "finished" ones).
        var settled = OffsetWatermark()
        /// Actions waiting for every id up to their mark to settle, in mark order.
        var barriers = FIFOQueue<Barrier>()
        /// Records refused for want of queue room, oldest first; the first stays here until it is handed over, so
        /// a later publish can never overtake it.
        var overflow: [(id: Int64, record: KafkaProducerRecord)] = []
        /// An event was lost: every barrier is told so from then on.
        var broken = false
        /// Publish ids handed out and not settled yet, in any order.
        var unsettled = 0

        /// Every id up to this one has settled.
        var settledThrough: Int64 { (settled.commitPosition ?? 1) - 1 }
    }

    private let producer: any RecordProducer
    private let topic: String
    private let encoder: CloudEventEncoder
    private let logger: Logger
    private let state = Mutex(State())
    /// Events that could not be delivered after the producer's own retries.
    public let failures = Atomic<Int>(0)
    /// Events the events topic acknowledged.
    public let deliveries = Atomic<Int>(0)
    /// Told once when the first event is lost; the worker treats that as fatal.
    private let onLoss: @Sendable (String) -> Void

    public init(producer: any RecordProducer, topic: String, encoder: CloudEventEncoder, logger: Logger,
                onLoss: @escaping @Sendable (String) -> Void = { _ in }) {
        self.producer = producer
        self.topic = topic
        self.encoder = encoder
        self.logger = logger
        self.onLoss = onLoss
    }

    public func publish(_ event: WorkerEvent, sequence: UInt64) {
        let record = encoder.record(of: event, sequence: sequence, topic: topic)
        let (id, queued) = state.withLock { state -> (Int64, Bool) in
            state.nextId += 1
            state.unsettled += 1
            let id = state.nextId
            state.settled.delivered(id)
            // Keep order: once anything waits in the overflow, later events wait behind it.
            if !state.overflow.isEmpty {
                state.overflow.append((id, record))
                return (id, true)
            }
            return (id, false)
        }
        if !queued { hand(record, id: id) }
    }

    /// Events published and not yet settled: in the producer's queue, on their way, or waiting for room.
    public var pendingCount: Int {
        state.withLock { $0.unsettled }
    }

    public func whenDelivered(_ action: @escaping @Sendable () -> Void) {
        whenSettled { outcome in
            if outcome == .delivered { action() }
        }
    }

    /// Runs `action` once every event published before this call has been delivered — or as soon as an event is
    /// lost (at once when one was lost already), with ``EventsOutcome/lost``. Unlike ``whenDelivered(_:)`` it
    /// always runs: for waiters that must end even when the events never will be delivered (a flush of batch
    /// snapshots, a shutdown).
    public func whenSettled(_ action: @escaping @Sendable (EventsOutcome) -> Void) {
        let outcome = state.withLock { state -> EventsOutcome? in
            if state.broken { return .lost }
            if state.settledThrough >= state.nextId { return .delivered }
            state.barriers.append(Barrier(mark: state.nextId, action: action))
            return nil
        }
        if let outcome { action(outcome) }
    }

    /// Hands a record to the producer; a refusal for want of room sends it, and everything after it, to the
    /// overflow.
    private func hand(_ record: KafkaProducerRecord, id: Int64) {
        do {
            try produce(record, id: id)
        } catch let error where error.code == .queueFull {
            let startDrain = state.withLock { state -> Bool in
                state.overflow.insert((id, record), at: 0)
                return state.overflow.count == 1
            }
            if startDrain { Task { await drainOverflow() } }
        } catch {
            settle(id, .failure(error))
        }
    }

    /// How often an event whose delivery came back without an offset is produced again before it counts as lost.
    static let unconfirmedRetries = 5

    private func produce(_ record: KafkaProducerRecord, id: Int64, unconfirmed: Int = 0) throws(KafkaError) {
        try producer.produce(record) { [weak self] result in
            guard let self else { return }
            if case .success(let report) = result, report.offset < 0 {
                self.redeliver(record, id: id, unconfirmed: unconfirmed + 1)
            } else {
                self.settle(id, result)
            }
        }
    }

    /// A delivery report without an offset says the idempotent producer concluded the record was written (a later
    /// batch was acknowledged, or the broker called it a duplicate) without the broker saying where. A broker that
    /// does not check a non-transactional producer's sequence numbers — librdkafka's mock cluster — acknowledges a
    /// later batch after dropping an earlier one it answered with an error, so the record may be nowhere: it is
    /// produced again. A consumer drops the repeat by event id.
    private func redeliver(_ record: KafkaProducerRecord, id: Int64, unconfirmed: Int) {
        guard unconfirmed <= Self.unconfirmedRetries else {
            settle(id, .failure(KafkaError(.unexpectedResponse, "delivered \(unconfirmed) times without an offset")))
            return
        }
        logger.debug("an event was reported delivered without an offset; producing it again",
                     ["key": String(decoding: record.key ?? Data(), as: UTF8.self), "times": String(unconfirmed)])
        do {
            try produce(record, id: id, unconfirmed: unconfirmed)
        } catch let error where error.code == .queueFull {
            // Rare: keep it simple and wait for room on a task, in order among its own retries.
            Task { [weak self] in
                await self?.producer.waitForQueueSpace()
                self?.redeliver(record, id: id, unconfirmed: unconfirmed)
            }
        } catch {
            settle(id, .failure(error))
        }
    }

    /// Hands overflowed records over as the queue frees up, oldest first; the drain ends when the overflow is
    /// empty, and the next refusal starts another.
    private func drainOverflow() async {
        while let next = state.withLock({ $0.overflow.first }) {
            do {
                try produce(next.record, id: next.id)
            } catch let error where error.code == .queueFull {
                await producer.waitForQueueSpace()
                continue
            } catch {
                settle(next.id, .failure(error))
            }
            let more = state.withLock { state -> Bool in
                // By id: a refusal meanwhile may have put an older record in front of it.
                if let index = state.overflow.firstIndex(where: { $0.id == next.id }) { state.overflow.remove(at: index) }
                return !state.overflow.isEmpty
            }
            if !more { return }
        }
    }

    /// The one place a publish id's outcome lands, whichever path handed its record over.
    private func settle(_ id: Int64, _ result: Result<KafkaDeliveryReport, KafkaError>) {
        var lossReason: String?
        switch result {
        case .failure(let error):
            failures.add(1, ordering: .relaxed)
            logger.error("an event could not be delivered; nothing more is committed", ["error": error.description])
            lossReason = error.description
        case .success:
            deliveries.add(1, ordering: .relaxed)
        }
        let (ready, outcome, firstLoss) = state.withLock { state -> ([@Sendable (EventsOutcome) -> Void], EventsOutcome, Bool) in
            if state.settled.finish(id) { state.unsettled -= 1 }
            let firstLoss = lossReason != nil && !state.broken
            if lossReason != nil { state.broken = true }
            var ready: [@Sendable (EventsOutcome) -> Void] = []
            if state.broken {
                // Every waiter hears of the loss, whatever its mark: none may wait for a delivery that cannot come.
                while let barrier = state.barriers.popFirst() { ready.append(barrier.action) }
                return (ready, .lost, firstLoss)
            }
            let through = state.settledThrough
            while let barrier = state.barriers.first, barrier.mark <= through {
                ready.append(barrier.action)
                _ = state.barriers.popFirst()
            }
            return (ready, .delivered, false)
        }
        // The loss is reported before the waiters hear of it: the worker is failing by the time they act.
        if firstLoss, let lossReason { onLoss(lossReason) }
        ready.forEach { $0(outcome) }
    }
}
