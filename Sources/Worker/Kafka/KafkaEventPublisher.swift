import Foundation
import KafkaIO
import Synchronization

/// Publishes worker events to the events topic as CloudEvents, keyed by batch id, and tells when everything
/// published so far has been delivered.
///
/// `publish` never blocks (it is called from transfer threads): records go straight to librdkafka's queue, and
/// only when that queue is full do they wait, in order, in an overflow list that a task drains.
/// Delivery tracking keeps a contiguous "delivered up to" mark over publish ids, so barriers are O(1) amortised.
public final class KafkaEventPublisher: EventPublisher {
    private struct State {
        var nextId: UInt64 = 0
        /// Every id up to this one has been delivered (or given up on).
        var deliveredUpTo: UInt64 = 0
        /// Ids above the mark that are already done.
        var doneAhead: Set<UInt64> = []
        /// Actions waiting for the mark to reach their id, in id order.
        var barriers: [(mark: UInt64, action: @Sendable () -> Void)] = []
        /// The first barrier not yet run (the array is compacted now and then rather than shifted on every run).
        var barrierHead = 0
        var overflow: [(id: UInt64, record: KafkaProducerRecord)] = []
        var draining = false
        /// An event was lost: no barrier runs from then on, so no record is committed past the loss.
        var broken = false
    }

    private let producer: KafkaProducer
    private let topic: String
    private let encoder: CloudEventEncoder
    private let logger: Logger
    private let state = Mutex(State())
    /// Events that could not be delivered after librdkafka's own retries.
    public let failures = Atomic<Int>(0)
    /// Told once when the first event is lost; the worker treats that as fatal.
    private let onLoss: @Sendable (String) -> Void

    public init(producer: KafkaProducer, topic: String, encoder: CloudEventEncoder, logger: Logger,
                onLoss: @escaping @Sendable (String) -> Void = { _ in }) {
        self.producer = producer
        self.topic = topic
        self.encoder = encoder
        self.logger = logger
        self.onLoss = onLoss
    }

    public func publish(_ event: WorkerEvent, sequence: UInt64) {
        let record = KafkaProducerRecord(topic: topic, key: Data(event.batchId.utf8), value: Data(encoder.encode(event, sequence: sequence)))
        let (id, queued) = state.withLock { state -> (UInt64, Bool) in
            state.nextId += 1
            let id = state.nextId
            // Keep order: once anything waits in the overflow, later events wait behind it.
            if !state.overflow.isEmpty {
                state.overflow.append((id, record))
                return (id, true)
            }
            return (id, false)
        }
        if !queued { hand(record, id: id) }
    }

    public func whenDelivered(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.broken { return false }
            if state.deliveredUpTo >= state.nextId { return true }
            state.barriers.append((state.nextId, action))
            return false
        }
        if runNow { action() }
    }

    private func hand(_ record: KafkaProducerRecord, id: UInt64) {
        do {
            try producer.produce(record) { [weak self] result in
                if case .failure(let error) = result {
                    self?.lost(id, because: error.description)
                } else {
                    self?.done(id)
                }
            }
        } catch let error where error.code == .queueFull {
            let startDrain = state.withLock { state -> Bool in
                state.overflow.insert((id, record), at: 0)
                defer { state.draining = true }
                return !state.draining
            }
            if startDrain { Task { await drainOverflow() } }
        } catch {
            lost(id, because: error.description)
        }
    }

    /// An event that will never arrive: the worker stops committing and is told, so the records behind it are
    /// replayed rather than committed without their events.
    private func lost(_ id: UInt64, because reason: String) {
        failures.add(1, ordering: .relaxed)
        logger.error("an event could not be delivered", ["error": reason])
        let first = state.withLock { state in
            defer { state.broken = true }
            return !state.broken
        }
        if first { onLoss(reason) }
        done(id)
    }

    /// Hands overflowed records over as the queue frees up, oldest first.
    private func drainOverflow() async {
        while let next = state.withLock({ state -> (id: UInt64, record: KafkaProducerRecord)? in
            guard !state.overflow.isEmpty else {
                state.draining = false
                return nil
            }
            return state.overflow.removeFirst()
        }) {
            do {
                let ticket = try await producer.enqueue(next.record)
                Task { [weak self] in
                    do { _ = try await ticket.report() } catch {
                        self?.failures.add(1, ordering: .relaxed)
                    }
                    self?.done(next.id)
                }
            } catch {
                failures.add(1, ordering: .relaxed)
                done(next.id)
            }
        }
    }

    private func done(_ id: UInt64) {
        let ready = state.withLock { state -> [@Sendable () -> Void] in
            // Reports nearly always come in publish order: then the mark just moves, without touching the set.
            if id == state.deliveredUpTo + 1 {
                state.deliveredUpTo = id
            } else {
                state.doneAhead.insert(id)
            }
            while !state.doneAhead.isEmpty, state.doneAhead.remove(state.deliveredUpTo + 1) != nil {
                state.deliveredUpTo += 1
            }
            var ready: [@Sendable () -> Void] = []
            if state.broken {
                state.barriers.removeAll()
                state.barrierHead = 0
                return ready
            }
            while state.barrierHead < state.barriers.count, state.barriers[state.barrierHead].mark <= state.deliveredUpTo {
                ready.append(state.barriers[state.barrierHead].action)
                state.barrierHead += 1
            }
            if state.barrierHead > 1024, state.barrierHead * 2 > state.barriers.count {
                state.barriers.removeFirst(state.barrierHead)
                state.barrierHead = 0
            }
            return ready
        }
        ready.forEach { $0() }
    }
}
