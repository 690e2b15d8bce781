import Dispatch
import FIFOQueueModule
import Foundation
import KafkaIO
import Synchronization
import WireFormat

/// The dashboard's model shared between the feed that folds records into it and the event streams of the browsers
/// watching it.
///
/// The model lives behind a `Mutex`. What the feed's ``apply(_:)`` changes collects in one set of pending changes;
/// at most once per ``StreamLimits/interval`` they are encoded as one `delta` message — once, whoever is watching —
/// and that message is queued for every open stream. A stream's thread (a connection thread of the embedded HTTP
/// server, never the cooperative pool) blocks in ``next(stream:waiting:)`` and takes its queue's messages in order.
/// Whoever finds the pending changes due publishes them: the feed as it applies more, or a waiting stream once the
/// interval has passed, so a burst's last changes never wait for the next record.
///
/// A stream that stops taking — a browser that stopped reading, whose connection thread waits on its socket — keeps
/// only references to the shared messages; once more than ``StreamLimits/maxBacklog`` bytes wait behind the newest
/// one, the stream is dropped and its connection cut, so the messages the hub holds stay bounded by that backlog.
public final class DashboardHub: Sendable {
    /// What a stream's wait ended with.
    public enum StreamStep: Sendable, Hashable {
        /// A `delta` message as the stream sends it (`event: delta` and its JSON on one `data:` line), shared by
        /// every stream.
        case delta([UInt8])
        /// Nothing changed for the whole wait.
        case idle
        /// The hub closed (the dashboard is stopping), or the stream fell too far behind: end the stream.
        case closed
    }

    private struct Stream {
        var queue = FIFOQueue<[UInt8]>()
        var queuedBytes = 0
        let wake: DispatchSemaphore
        var signalled = false
        /// Ends the stream's connection from another thread; nil until the server queued its answer.
        var cut: (@Sendable () -> Void)?
    }

    private struct State {
        var model: DashboardModel
        var version: UInt64 = 0
        /// Changes not yet published; only kept while a stream is open (a new stream starts from a snapshot).
        var pending = ModelChanges()
        /// When the last delta went out, by the hub's clock.
        var lastPublished: Date?
        var streams: [Int: Stream] = [:]
        var nextStream = 0
        var dropped = 0
        var closed = false
    }

    /// Whether the page offers control buttons and the server takes control requests.
    public let controls: Bool
    /// The bounds on the streams.
    public let streamLimits: StreamLimits
    private let state: Mutex<State>
    private let clock: @Sendable () -> Date

    /// A hub over an empty model; `clock` stamps the messages (`now`) and stands in for records without a time.
    public init(limits: DashboardLimits, streams: StreamLimits = StreamLimits(), controls: Bool,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.controls = controls
        self.clock = clock
        streamLimits = streams
        state = Mutex(State(model: DashboardModel(limits: limits)))
    }

    /// The clock's time now.
    public var now: Date { clock() }

    /// Changes the model; what changed goes to the streams with the next delta (published now when one is due).
    public func apply(_ change: (inout DashboardModel) -> Void) {
        let cuts: [@Sendable () -> Void] = state.withLock { state in
            change(&state.model)
            guard state.model.hasChanges else { return [] }
            let changes = state.model.takeChanges()
            state.version += 1
            guard !state.streams.isEmpty else { return [] }
            state.pending.merge(changes)
            if isDue(state.lastPublished) { return publish(&state) }
            // A stream waiting for changes learns of these, and waits until they are due.
            Self.wakeAll(&state)
            return []
        }
        for cut in cuts { cut() }
    }

    /// Reads the model.
    public func read<Result>(_ body: (DashboardModel) -> Result) -> Result {
        state.withLock { body($0.model) }
    }

    /// Registers a stream and returns it with the `snapshot` message's JSON: everything up to now, so that what
    /// changes afterwards reaches the stream as deltas. Refused when ``StreamLimits/maxClients`` streams are open or
    /// the hub is closed.
    public func openStream() -> StreamOpening {
        var cuts: [@Sendable () -> Void] = []
        let opening: StreamOpening = state.withLock { state in
            guard !state.closed else { return .closed }
            guard state.streams.count < streamLimits.maxClients else { return .full(limit: streamLimits.maxClients) }
            // The snapshot holds the pending changes: the streams already open get them first.
            if !state.pending.isEmpty { cuts = publish(&state) }
            let id = state.nextStream
            state.nextStream += 1
            state.streams[id] = Stream(wake: DispatchSemaphore(value: 0))
            return .opened(id: id, snapshot: StreamMessageJSON.snapshot(state.model, version: state.version,
                                                                        now: Self.milliseconds(clock()), controls: controls))
        }
        for cut in cuts { cut() }
        return opening
    }

    /// Gives the stream the means to end its connection, for when it falls too far behind; a stream already dropped
    /// is cut at once.
    public func attachConnection(of id: Int, cut: @escaping @Sendable () -> Void) {
        let open = state.withLock { state in
            guard state.streams[id] != nil else { return false }
            state.streams[id]?.cut = cut
            return true
        }
        if !open { cut() }
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

    /// Waits at most `waiting` for the stream's next message, publishing the pending changes when they are due.
    public func next(stream id: Int, waiting: Duration) -> StreamStep {
        let deadline = DispatchTime.now() + waiting.inSeconds
        while true {
            enum Check { case step(StreamStep), published([@Sendable () -> Void]), wait(DispatchSemaphore, DispatchTime) }
            let check: Check = state.withLock { state in
                guard !state.closed, state.streams[id] != nil else { return .step(.closed) }
                if let message = state.streams[id]?.queue.popFirst() {
                    state.streams[id]?.queuedBytes -= message.count
                    return .step(.delta(message))
                }
                var until = deadline
                // Waiting for pending changes to fall due needs no wake-up from each change meanwhile.
                var wakeOnChange = true
                if !state.pending.isEmpty {
                    if isDue(state.lastPublished) { return .published(publish(&state)) }
                    until = min(deadline, .now() + timeUntilDue(state.lastPublished))
                    wakeOnChange = false
                }
                state.streams[id]?.signalled = !wakeOnChange
                return .wait(state.streams[id]!.wake, until)
            }
            switch check {
            case .step(let step):
                return step
            case .published(let cuts):
                for cut in cuts { cut() }
            case .wait(let wake, let until):
                if wake.wait(timeout: until) == .timedOut, until >= deadline { return .idle }
            }
        }
    }

    /// Forgets a stream (its connection ended).
    public func closeStream(_ id: Int) {
        state.withLock { state in
            _ = state.streams.removeValue(forKey: id)
            if state.streams.isEmpty { state.pending = ModelChanges() }
        }
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

    /// The streams dropped so far for falling more than ``StreamLimits/maxBacklog`` behind.
    public var droppedStreams: Int { state.withLock { $0.dropped } }

    static func milliseconds(_ date: Date) -> Int64 { DashboardModel.milliseconds(date) }

    /// Whether a delta may go out now: none went out yet, the interval has passed, or the clock went back.
    private func isDue(_ lastPublished: Date?) -> Bool {
        guard let lastPublished else { return true }
        let now = clock()
        return now < lastPublished || now >= lastPublished + streamLimits.interval.inSeconds
    }

    /// Seconds until a delta may go out, at most the interval.
    private func timeUntilDue(_ lastPublished: Date?) -> Double {
        guard let lastPublished else { return 0 }
        return min(streamLimits.interval.inSeconds, max(0, lastPublished.timeIntervalSince(clock()) + streamLimits.interval.inSeconds))
    }

    /// Encodes the pending changes as one delta and queues it for every stream; drops the streams that had more than
    /// the backlog bound waiting already, and returns the cuts of their connections, to be made outside the lock.
    private func publish(_ state: inout State) -> [@Sendable () -> Void] {
        let json = StreamMessageJSON.delta(state.model, state.pending, version: state.version, now: Self.milliseconds(clock()))
        let message = ServerSentEvent(event: "delta", data: json).encoded
        state.pending = ModelChanges()
        state.lastPublished = clock()
        var cuts: [@Sendable () -> Void] = []
        for id in Array(state.streams.keys) {
            guard let behind = state.streams[id]?.queuedBytes else { continue }
            if behind > streamLimits.maxBacklog, let dropped = state.streams.removeValue(forKey: id) {
                state.dropped += 1
                dropped.wake.signal()
                if let cut = dropped.cut { cuts.append(cut) }
                continue
            }
            // Mutated in place: a copy of the stream would copy its queue's storage.
            state.streams[id]?.queue.append(message)
            state.streams[id]?.queuedBytes += message.count
        }
        Self.wakeAll(&state)
        if state.streams.isEmpty { state.pending = ModelChanges() }
        return cuts
    }

    private static func wakeAll(_ state: inout State) {
        for id in state.streams.keys where state.streams[id]?.signalled == false {
            state.streams[id]?.signalled = true
            state.streams[id]?.wake.signal()
        }
    }
}
