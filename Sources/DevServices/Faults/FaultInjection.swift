import EmbeddedHTTP
import Foundation
import WireFormat

/// Wraps a service's handler with the transport faults of its `FaultPlan`.
///
/// Runs on the connection's thread, like the handler it wraps; stalls and throttles block that thread only.
struct FaultInjection: Sendable {
    /// The plan consulted on every request.
    let plan: FaultPlan
    /// The file id a request concerns, for `FaultTarget.fileId` (nil: none).
    let fileId: @Sendable (HTTPRequestHead) -> String?

    /// `handler` with this plan's transport faults applied.
    func wrap(_ handler: @escaping @Sendable (HTTPRequestHead) -> HTTPRequestAction)
        -> @Sendable (HTTPRequestHead) -> HTTPRequestAction {
        { head in apply(to: head, handler: handler) }
    }

    private func apply(to head: HTTPRequestHead,
                       handler: @Sendable (HTTPRequestHead) -> HTTPRequestAction) -> HTTPRequestAction {
        let faults = plan.claim(Fault.Kind.transport, path: head.path, fileId: fileId(head))
        guard !faults.isEmpty else { return handler(head) }
        var shape = FaultShape()
        var serverError: ServerResponse?
        for fault in faults {
            switch fault {
            case .serverError(let status, let retryAfter):
                serverError = .text(status, "injected server error\n",
                                    headers: retryAfter.map { [HTTPHeader("Retry-After", String($0))] } ?? [])
            case .dropConnection(let bytes): shape.dropAfter = max(0, bytes)
            case .stall(let bytes, let duration):
                shape.stallAfter = max(0, bytes)
                shape.stallDuration = duration
            case .trickleResponse(let rate): shape.responseRate = max(1, rate)
            case .trickleRequestBody(let rate): shape.requestRate = max(1, rate)
            default: break
            }
        }
        if shape.dropAfter == 0 { return .dropConnection }
        if shape.stallAfter == 0 {
            shape.stallAfter = nil
            FaultyBody.stall(on: plan.gate, for: shape.stallDuration)
        }
        let inner: any HTTPBodyReceiver
        if let serverError {
            inner = DiscardedBody(answering: serverError)
        } else {
            switch handler(head) {
            case .readBody(let receiver): inner = receiver
            case .respond(let response): inner = DiscardedBody(answering: response)
            case .dropConnection: return .dropConnection
            }
        }
        return .readBody(FaultyBody(inner: inner, shape: shape, gate: plan.gate))
    }
}
