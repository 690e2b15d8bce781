import EmbeddedHTTP
import Foundation

/// The body of one `GET /events` response: `retry`, the `snapshot` message, then each `delta` message the hub
/// publishes (at most one per ``StreamLimits/interval``, so bursts coalesce), and a comment after `heartbeat` of
/// silence so that a connection whose browser went away is noticed and its thread freed.
///
/// Runs on its connection's thread, which it blocks between messages (the embedded server gives each connection a
/// thread of its own); it ends when the hub closes or drops the stream. The stream was opened by the request's
/// handler, so that a request beyond `dashboard.maxClients` is refused before it is answered.
final class EventStreamBody: HTTPBodyProducer {
    private let hub: DashboardHub
    private let stream: Int
    private let heartbeat: Duration
    /// The message being written (a delta is shared with the other streams, never copied), and how far.
    private var pending: [UInt8]
    private var position = 0
    private var ended = false

    /// The body of the stream `stream`, opened with `snapshot`.
    init(hub: DashboardHub, stream: Int, snapshot: [UInt8], heartbeat: Duration = .seconds(10), reconnect: Duration = .seconds(1)) {
        self.hub = hub
        self.stream = stream
        self.heartbeat = heartbeat
        pending = ServerSentEvent.retry(milliseconds: reconnect.inMilliseconds) + ServerSentEvent(event: "snapshot", data: snapshot).encoded
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

    /// Lets the hub cut this connection off when the stream falls too far behind.
    func connected(_ connection: HTTPConnectionHandle) {
        hub.attachConnection(of: stream) { connection.close() }
    }

    /// The next bytes to send; nil when the stream is over.
    private func nextMessage() -> [UInt8]? {
        switch hub.next(stream: stream, waiting: heartbeat) {
        case .delta(let message):
            return message
        case .idle:
            return ServerSentEvent.comment("keep-alive")
        case .closed:
            ended = true
            return nil
        }
    }

    deinit {
        hub.closeStream(stream)
    }
}
