import EmbeddedHTTP
import Foundation

/// A body receiver that drops, stalls or slows a request as its `FaultShape` says, around the real receiver.
///
/// Lives on the connection's thread; blocking here blocks only that connection.
final class FaultyBody: HTTPBodyReceiver {
    private let inner: any HTTPBodyReceiver
    private var shape: FaultShape
    private let gate: StallGate
    private var received = 0
    private var throttled = true

    /// Wraps `inner` with the faults of `shape`, waiting on `gate`.
    init(inner: any HTTPBodyReceiver, shape: FaultShape, gate: StallGate) {
        self.inner = inner
        self.shape = shape
        self.gate = gate
    }

    /// Blocks the connection thread until the gate is released or closed, or `duration` has passed.
    static func stall(on gate: StallGate, for duration: Duration?) {
        gate.wait(until: duration.map { Date().addingTimeInterval($0.seconds) }, stall: true)
    }

    func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPBodyDisposition {
        var offset = 0
        while offset < chunk.count {
            var portion = chunk.count - offset
            if let dropAfter = shape.dropAfter { portion = min(portion, dropAfter - received) }
            if let stallAfter = shape.stallAfter { portion = min(portion, stallAfter - received) }
            let part = UnsafeRawBufferPointer(rebasing: chunk[offset..<offset + portion])
            if inner.receive(part) == .dropConnection { return .dropConnection }
            received += portion
            offset += portion
            throttleRead(portion)
            if received == shape.dropAfter { return .dropConnection }
            if received == shape.stallAfter {
                shape.stallAfter = nil
                Self.stall(on: gate, for: shape.stallDuration)
            }
        }
        return .proceed
    }

    func finish() -> HTTPRequestCompletion {
        if shape.stallAfter != nil {
            shape.stallAfter = nil
            Self.stall(on: gate, for: shape.stallDuration)
        }
        let completion = inner.finish()
        guard let rate = shape.responseRate, case .respond(var response) = completion else { return completion }
        response.body = ThrottledProducer.throttle(response.body, bytesPerSecond: rate, gate: gate)
        return .respond(response)
    }

    func abandon() {
        inner.abandon()
    }

    /// Waits as long as `count` bytes take at the read rate; a released gate ends throttling for this request.
    private func throttleRead(_ count: Int) {
        guard let rate = shape.requestRate, throttled, count > 0 else { return }
        let deadline = Date().addingTimeInterval(Double(count) / Double(rate))
        if gate.wait(until: deadline) { throttled = false }
    }
}
