import Foundation
import KafkaIO
@testable import Records
import Synchronization
import TestSupport
import Testing
@testable import Worker

/// The events publisher's promise: a barrier runs only once every event published before it was delivered, on
/// every hand-over path, and a lost event stops every later barrier — while a settled barrier (`whenSettled`) is
/// always told, delivered or lost, so nothing waits for a delivery that cannot come.
@Suite struct EventPublisherDeliveryTests {
    /// A producer that refuses for want of room while told to, and delivers or fails only when the test says.
    final class ScriptedProducer: RecordProducer {
        struct State {
            var refuseForRoom = false
            var handed: [(record: KafkaProducerRecord, report: @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void)] = []
            var spaceWaiters: [CheckedContinuation<Void, Never>] = []
            var refusals = 0
            /// Called with each handed record's index, on the producing thread, before `produce` returns: a test
            /// reports an earlier record from here to land a delivery inside a pass of the writer's outbox.
            var onProduce: (@Sendable (Int) -> Void)?
        }
        let state = Mutex(State())

        func produce(_ record: KafkaProducerRecord,
                     onDelivery: @escaping @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void) throws(KafkaError) {
            let handed = state.withLock { state -> (index: Int, hook: (@Sendable (Int) -> Void)?)? in
                if state.refuseForRoom {
                    state.refusals += 1
                    return nil
                }
                state.handed.append((record, onDelivery))
                return (state.handed.count - 1, state.onProduce)
            }
            guard let handed else { throw KafkaError(.queueFull, "full") }
            handed.hook?(handed.index)
        }

        /// Returns at once when there is room: room made before the wait began is not missed (the real producer's
        /// poll thread wakes waiters after every poll, so it cannot miss it either).
        func waitForQueueSpace() async {
            await withCheckedContinuation { continuation in
                let room = state.withLock { state -> Bool in
                    guard state.refuseForRoom else { return true }
                    state.spaceWaiters.append(continuation)
                    return false
                }
                if room { continuation.resume() }
            }
        }

        /// Makes room and wakes the waiting drain.
        func freeRoom() {
            let waiters = state.withLock { state in
                state.refuseForRoom = false
                defer { state.spaceWaiters = [] }
                return state.spaceWaiters
            }
            waiters.forEach { $0.resume() }
        }

        var handedValues: [String] { state.withLock { $0.handed.map { String(decoding: $0.record.value ?? Data(), as: UTF8.self) } } }
        var handedCount: Int { state.withLock { $0.handed.count } }
        var hasSpaceWaiter: Bool { state.withLock { !$0.spaceWaiters.isEmpty } }

        func report(_ index: Int, _ result: Result<KafkaDeliveryReport, KafkaError>) {
            let report = state.withLock { $0.handed[index].report }
            report(result)
        }
    }

    static let delivered: Result<KafkaDeliveryReport, KafkaError> = .success(KafkaDeliveryReport(topic: "events", partition: 0, offset: 0))
    static let failed: Result<KafkaDeliveryReport, KafkaError> = .failure(KafkaError(.timedOut, "message timed out"))

    func event(_ index: Int) -> WorkerEvent {
        .jobInvalid(batchId: "b", requestId: "r\(index)", reason: "bad", topic: "jobs", partition: 0, offset: Int64(index))
    }

    func makePublisher(_ producer: ScriptedProducer, losses: Locked<[String]>) -> KafkaEventPublisher {
        KafkaEventPublisher(producer: producer, topic: "events", encoder: CloudEventEncoder(workerId: "w"), logger: .silent) { reason in
            losses.update { $0.append(reason) }
        }
    }

    @Test func aBarrierWaitsForEveryEarlierEventAndRunsOnceTheyAreDelivered() {
        let producer = ScriptedProducer()
        let losses = Locked<[String]>([])
        let publisher = makePublisher(producer, losses: losses)
        let ran = Atomic<Int>(0)
        publisher.publish(event(1), sequence: 1)
        publisher.publish(event(2), sequence: 2)
        publisher.whenDelivered { ran.add(1, ordering: .relaxed) }
        producer.report(1, Self.delivered)
        #expect(ran.load(ordering: .relaxed) == 0, "the first event is still out")
        producer.report(0, Self.delivered)
        #expect(ran.load(ordering: .relaxed) == 1)
        publisher.whenDelivered { ran.add(1, ordering: .relaxed) }
        #expect(ran.load(ordering: .relaxed) == 2, "nothing outstanding: the barrier runs at once")
    }

    @Test func eventsArePendingUntilSettledAndOnlyDeliveredOnesCount() {
        let producer = ScriptedProducer()
        let publisher = makePublisher(producer, losses: Locked([]))
        for index in 1...3 { publisher.publish(event(index), sequence: UInt64(index)) }
        #expect(publisher.pendingCount == 3)
        producer.report(1, Self.delivered)
        #expect(publisher.pendingCount == 2 && publisher.deliveries.load(ordering: .relaxed) == 1)
        producer.report(0, Self.delivered)
        producer.report(2, Self.failed)
        #expect(publisher.pendingCount == 0)
        #expect(publisher.deliveries.load(ordering: .relaxed) == 2 && publisher.failures.load(ordering: .relaxed) == 1)
    }

    @Test func everyEventRecordSaysItIsAStructuredCloudEvent() throws {
        let producer = ScriptedProducer()
        let publisher = makePublisher(producer, losses: Locked([]))
        publisher.publish(event(1), sequence: 1)
        let record = try #require(producer.state.withLock { $0.handed.first?.record })
        #expect(record.headers.map(\.name) == ["content-type"])
        #expect(record.headers.first?.stringValue == "application/cloudevents+json; charset=UTF-8")
        #expect(String(decoding: record.key ?? Data(), as: UTF8.self) == "b", "keyed by batch id")
    }

    @Test func anEventReportedDeliveredWithoutAnOffsetIsProducedAgainBeforeItCounts() {
        let producer = ScriptedProducer()
        let losses = Locked<[String]>([])
        let publisher = makePublisher(producer, losses: losses)
        let ran = Atomic<Int>(0)
        publisher.publish(event(1), sequence: 1)
        publisher.whenDelivered { ran.add(1, ordering: .relaxed) }
        producer.report(0, .success(KafkaDeliveryReport(topic: "events", partition: 0, offset: -1001)))
        #expect(producer.handedCount == 2, "produced again")
        #expect(ran.load(ordering: .relaxed) == 0, "not yet confirmed")
        producer.report(1, Self.delivered)
        #expect(ran.load(ordering: .relaxed) == 1)
        #expect(producer.handedValues[0] == producer.handedValues[1], "the same record")
        #expect(losses.value.isEmpty)
    }

    @Test func anEventThatNeverGetsAnOffsetIsLost() {
        let producer = ScriptedProducer()
        let losses = Locked<[String]>([])
        let publisher = makePublisher(producer, losses: losses)
        publisher.publish(event(1), sequence: 1)
        for index in 0...KafkaEventPublisher.unconfirmedRetries {
            producer.report(index, .success(KafkaDeliveryReport(topic: "events", partition: 0, offset: -1001)))
        }
        #expect(losses.value.count == 1)
    }

    @Test func aLostEventOnTheOverflowPathStopsEveryLaterBarrier() async {
        let producer = ScriptedProducer()
        let losses = Locked<[String]>([])
        let publisher = makePublisher(producer, losses: losses)
        let ran = Atomic<Int>(0)
        producer.state.withLock { $0.refuseForRoom = true }
        publisher.publish(event(1), sequence: 1)
        publisher.whenDelivered { ran.add(1, ordering: .relaxed) }
        await yieldUntil { producer.hasSpaceWaiter }
        producer.freeRoom()
        await yieldUntil { producer.handedCount == 1 }
        producer.report(0, Self.failed)
        #expect(ran.load(ordering: .relaxed) == 0, "a lost event lets no barrier run")
        #expect(losses.value.count == 1)
        publisher.publish(event(2), sequence: 2)
        producer.report(1, Self.delivered)
        publisher.whenDelivered { ran.add(1, ordering: .relaxed) }
        #expect(ran.load(ordering: .relaxed) == 0, "nor any later one")
        #expect(publisher.failures.load(ordering: .relaxed) == 1)
    }

    @Test func aSettledBarrierWaitingWhenAnEventIsLostIsToldSoAndLaterOnesAtOnce() {
        let producer = ScriptedProducer()
        let losses = Locked<[String]>([])
        let publisher = makePublisher(producer, losses: losses)
        let outcomes = Locked<[EventsOutcome]>([])
        publisher.publish(event(1), sequence: 1)
        publisher.publish(event(2), sequence: 2)
        publisher.whenSettled { outcome in outcomes.update { $0.append(outcome) } }
        producer.report(1, Self.failed)
        #expect(outcomes.value == [.lost], "told of the loss at once, though the first event is still out")
        #expect(losses.value.count == 1, "reported fatal once")
        producer.report(0, Self.delivered)
        publisher.whenSettled { outcome in outcomes.update { $0.append(outcome) } }
        #expect(outcomes.value == [.lost, .lost], "a barrier asked for after the loss hears of it at once")
    }

    @Test func aSettledBarrierIsToldDeliveredOnceEveryEarlierEventIs() {
        let producer = ScriptedProducer()
        let publisher = makePublisher(producer, losses: Locked([]))
        let outcomes = Locked<[EventsOutcome]>([])
        publisher.whenSettled { outcome in outcomes.update { $0.append(outcome) } }
        #expect(outcomes.value == [.delivered], "nothing outstanding: at once")
        publisher.publish(event(1), sequence: 1)
        publisher.whenSettled { outcome in outcomes.update { $0.append(outcome) } }
        #expect(outcomes.value == [.delivered])
        producer.report(0, Self.delivered)
        #expect(outcomes.value == [.delivered, .delivered])
    }

    @Test func eventsRefusedForRoomLeaveInPublishOrderAndNothingOvertakesThem() async {
        let producer = ScriptedProducer()
        let losses = Locked<[String]>([])
        let publisher = makePublisher(producer, losses: losses)
        producer.state.withLock { $0.refuseForRoom = true }
        publisher.publish(event(1), sequence: 1)
        await yieldUntil { producer.hasSpaceWaiter }
        // Room again, but the overflow is not drained yet: later events must queue behind it.
        producer.state.withLock { $0.refuseForRoom = false }
        publisher.publish(event(2), sequence: 2)
        publisher.publish(event(3), sequence: 3)
        #expect(producer.handedCount == 0)
        producer.freeRoom()
        await yieldUntil { producer.handedCount == 3 }
        let order = producer.handedValues.map { value in ["r1", "r2", "r3"].first { value.contains("\"requestId\":\"\($0)\"") } }
        #expect(order == ["r1", "r2", "r3"])
        #expect(losses.value.isEmpty)
    }
}
