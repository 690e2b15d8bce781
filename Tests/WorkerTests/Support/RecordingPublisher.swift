@testable import Records
import Synchronization
import TestSupport
import Testing
@testable import Worker

/// Keeps published events in order; delivery is immediate.
final class RecordingPublisher: EventPublisher {
    private let log = RecordLog<Published>()

    struct Published: Sendable {
        let event: WorkerEvent
        let sequence: UInt64
    }

    func publish(_ event: WorkerEvent, sequence: UInt64) {
        log.append(Published(event: event, sequence: sequence))
    }

    func whenDelivered(_ action: @escaping @Sendable () -> Void) { action() }

    var events: [WorkerEvent] { log.elements.map(\.event) }
    var published: [(event: WorkerEvent, sequence: UInt64)] { log.elements.map { ($0.event, $0.sequence) } }

    var types: [String] { events.map(\.type) }

    /// Returns once the published events satisfy `predicate` — or after 30 s, with an issue recorded.
    func wait(sourceLocation: SourceLocation = #_sourceLocation, until predicate: @escaping @Sendable ([WorkerEvent]) -> Bool) async {
        await log.wait("the published events to satisfy the condition", sourceLocation: sourceLocation) { published in
            predicate(published.map(\.event))
        }
    }

    func wait(forType type: String, count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async {
        await wait(sourceLocation: sourceLocation) { events in events.filter { $0.type == type }.count >= count }
    }
}

/// Records sent messages; a script may fail chosen attempts.
final class RecordingSender: MessageSender {
    private let state = Mutex<(messages: [OutgoingMessage], attempts: Int)>(([], 0))
    private let failure: @Sendable (Int) -> MessageSendError?

    init(failure: @escaping @Sendable (_ attempt: Int) -> MessageSendError? = { _ in nil }) {
        self.failure = failure
    }

    func send(_ message: OutgoingMessage) async throws -> String? {
        let attempt = state.withLock { $0.attempts += 1; return $0.attempts }
        if let error = failure(attempt) { throw error }
        return state.withLock { state in
            state.messages.append(message)
            return "msg-\(state.messages.count)"
        }
    }

    var messages: [OutgoingMessage] { state.withLock { $0.messages } }
}

/// Counts a record's `done` calls and lets a test wait for them.
final class RecordCompletion: Sendable {
    private let counter = EventCounter()
    var done: @Sendable () -> Void { { self.counter.increment() } }
    var calls: Int { counter.count }
    func wait(for count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async {
        await counter.wait(for: count, sourceLocation: sourceLocation)
    }
}
