import Dispatch
import Foundation
import Synchronization
import WireFormat

/// The dashboard's model shared between the feed that folds records into it and the event streams of the browsers
/// watching it.
///
/// The model lives behind a `Mutex`. Each stream keeps the changes made since its last message; the feed's
/// ``apply(_:)`` merges every change into each of them and wakes a stream that was waiting (once: its semaphore is
/// signalled only when it goes from nothing pending to something pending). A stream's thread blocks in
/// ``next(stream:waiting:)`` — it is a connection thread of the embedded HTTP server, never the cooperative pool —
/// and turns what it took into one delta, so a slow browser gets the latest state rather than a backlog.
public final class DashboardHub: Sendable {
    /// What a stream's wait ended with.
    public enum StreamStep: Sendable, Hashable {
        /// A `delta` message's JSON.
        case delta([UInt8])
        /// Nothing changed for the whole wait.
        case idle
        /// The hub closed (the dashboard is stopping): end the stream.
        case closed
    }

    private struct Stream {
        var changes = ModelChanges()
        let wake: DispatchSemaphore
        var signalled = false
    }

    private struct State {
        var model: DashboardModel
        var version: UInt64 = 0
        var streams: [Int: Stream] = [:]
        var nextStream = 0
        var closed = false
    }

    /// Whether the page offers control buttons and the server takes control requests.
    public let controls: Bool
    private let state: Mutex<State>
    private let clock: @Sendable () -> Date

    /// A hub over an empty model; `clock` stamps the messages (`now`) and stands in for records without a time.
    public init(limits: DashboardLimits, controls: Bool, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.controls = controls
        self.clock = clock
        state = Mutex(State(model: DashboardModel(limits: limits)))
    }

    /// The clock's time now.
    public var now: Date { clock() }

    /// Changes the model, then hands what changed to every stream.
    public func apply(_ change: (inout DashboardModel) -> Void) {
        state.withLock { state in
            change(&state.model)
            guard state.model.hasChanges else { return }
            let changes = state.model.takeChanges()
            state.version += 1
            for id in state.streams.keys {
                state.streams[id]?.changes.merge(changes)
                if state.streams[id]?.signalled == false {
                    state.streams[id]?.signalled = true
                    state.streams[id]?.wake.signal()
                }
            }
        }
    }

    /// Reads the model.
    public func read<Result>(_ body: (DashboardModel) -> Result) -> Result {
        state.withLock { body($0.model) }
    }

    /// Registers a stream and returns it with the `snapshot` message's JSON: everything up to now, so that what
    /// changes afterwards reaches the stream as deltas. Nil once the hub is closed.
    public func openStream() -> (id: Int, snapshot: [UInt8])? {
        state.withLock { state in
            guard !state.closed else { return nil }
            let id = state.nextStream
            state.nextStream += 1
            state.streams[id] = Stream(wake: DispatchSemaphore(value: 0))
            return (id, StreamMessageJSON.snapshot(state.model, version: state.version, now: Self.milliseconds(clock()),
                                                   controls: controls))
        }
    }

    /// The whole model as one snapshot message's JSON, for a reader without a stream (`GET /api/snapshot`).
    public func snapshot() -> [UInt8] {
        state.withLock { state in
            StreamMessageJSON.snapshot(state.model, version: state.version, now: Self.milliseconds(clock()), controls: controls)
        }
    }

    /// How far the feed read (`GET /api/feed`): small, for a check that should not fetch every row.
    public func feed() -> [UInt8] {
        state.withLock { state in
            var json = JSONWriter(capacity: 256)
            PanelJSON.writeFeed(state.model, into: &json)
            return json.bytes
        }
    }

    /// The batch page's JSON, nil for a batch the model does not hold.
    public func detail(of batchId: String) -> [UInt8]? {
        state.withLock { state in
            state.model.batches[batchId].map { BatchDetailJSON.encode($0, controls: controls) }
        }
    }

    /// Waits at most `waiting` for changes to the stream, and takes them as one delta.
    public func next(stream id: Int, waiting: Duration) -> StreamStep {
        let deadline = DispatchTime.now() + waiting.inSeconds
        while true {
            enum Check { case step(StreamStep), wait(DispatchSemaphore) }
            let check: Check = state.withLock { state in
                guard !state.closed, let stream = state.streams[id] else { return .step(.closed) }
                guard stream.changes.isEmpty else {
                    let delta = StreamMessageJSON.delta(state.model, stream.changes, version: state.version,
                                                        now: Self.milliseconds(clock()))
                    state.streams[id]?.changes = ModelChanges()
                    state.streams[id]?.signalled = false
                    return .step(.delta(delta))
                }
                state.streams[id]?.signalled = false
                return .wait(stream.wake)
            }
            switch check {
            case .step(let step): return step
            case .wait(let wake):
                if wake.wait(timeout: deadline) == .timedOut { return .idle }
            }
        }
    }

    /// Forgets a stream (its connection ended).
    public func closeStream(_ id: Int) {
        state.withLock { state in _ = state.streams.removeValue(forKey: id) }
    }

    /// Ends every stream, now and later: streams waiting return `.closed` at once, so the server's connection
    /// threads come back and it can stop.
    public func close() {
        let waiting = state.withLock { state in
            state.closed = true
            return state.streams.values.map(\.wake)
        }
        for wake in waiting { wake.signal() }
    }

    /// The number of streams open now.
    public var streamCount: Int { state.withLock { $0.streams.count } }

    static func milliseconds(_ date: Date) -> Int64 { DashboardModel.milliseconds(date) }
}
