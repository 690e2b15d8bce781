import EmbeddedHTTP
import Foundation

/// The body of one `GET /events` response: `retry`, the `snapshot` message, then a `delta` message whenever the
/// model changed (at most one per `interval`, so bursts coalesce), and a comment after `heartbeat` of silence so
/// that a connection whose browser went away is noticed and its thread freed.
///
/// Runs on its connection's thread, which it blocks between messages (the embedded server gives each connection a
/// thread of its own); it ends when the hub closes.
final class EventStreamBody: HTTPBodyProducer {
    private let hub: DashboardHub
    private let interval: Duration
    private let heartbeat: Duration
    private let reconnect: Duration
    private var stream: Int?
    private var pending: [UInt8] = []
    private var position = 0
    private var lastDelta: ContinuousClock.Instant?
    private var ended = false

    init(hub: DashboardHub, interval: Duration = .milliseconds(250), heartbeat: Duration = .seconds(10),
         reconnect: Duration = .seconds(1)) {
        self.hub = hub
        self.interval = interval
        self.heartbeat = heartbeat
        self.reconnect = reconnect
    }

    func produce(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> HTTPBodyChunk {
        while position == pending.count {
            guard !ended, let next = nextMessage() else { return .end }
            pending = next
            position = 0
        }
        let count = min(buffer.count, pending.count - position)
        pending.withUnsafeBytes { source in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[position..<position + count]))
        }
        position += count
        return .bytes(count)
    }

    /// The next bytes to send; nil when the stream is over.
    private func nextMessage() -> [UInt8]? {
        guard let stream else {
            guard let opened = hub.openStream() else { return nil }
            stream = opened.id
            return ServerSentEvent.retry(milliseconds: reconnect.inMilliseconds)
                + ServerSentEvent(event: "snapshot", data: opened.snapshot).encoded
        }
        if let lastDelta {
            let resume = lastDelta + interval
            if resume > .now { Thread.sleep(forTimeInterval: (resume - .now).inSeconds) }
        }
        switch hub.next(stream: stream, waiting: heartbeat) {
        case .delta(let json):
            lastDelta = .now
            return ServerSentEvent(event: "delta", data: json).encoded
        case .idle:
            return ServerSentEvent.comment("keep-alive")
        case .closed:
            ended = true
            return nil
        }
    }

    deinit {
        if let stream { hub.closeStream(stream) }
    }
}
