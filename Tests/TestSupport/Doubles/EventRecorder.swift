import Synchronization
import Testing
import UploadEngine

/// Collects a batch's events and lets a test wait for the ones it expects, without sleeping.
public final class EventRecorder: Sendable {
    private let log = RecordLog<UploadEvent>()

    public init() {}

    /// The observer to hand to a `BatchRunner`.
    public var observer: UploadObserver {
        { [self] event in record(event) }
    }

    public var events: [UploadEvent] { log.elements }

    public func record(_ event: UploadEvent) {
        log.append(event)
    }

    /// Returns once the recorded events satisfy `predicate` — or after `timeout`, with an issue recorded
    /// (``waitFor(_:timeout:sourceLocation:_:)``).
    public func wait(timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation,
                     until predicate: @escaping @Sendable ([UploadEvent]) -> Bool) async {
        await log.wait("the batch's events to satisfy the condition", timeout: timeout, sourceLocation: sourceLocation,
                       until: predicate)
    }

    /// Returns once `count` `completed` events have been recorded.
    public func waitForCompletions(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        await wait(sourceLocation: sourceLocation) { events in events.filter(\.isCompletion).count >= count }
    }
}
