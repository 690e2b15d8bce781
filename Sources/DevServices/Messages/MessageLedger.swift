import Synchronization

/// The capture's record and its muid → id index, updated atomically from connection threads.
final class MessageLedger: Sendable {
    private struct State {
        var requests: [CapturedRequest] = []
        var idsByMuid: [String: String] = [:]
        var lastID = 0
    }

    private let state = Mutex(State())

    /// Records a valid message: a new id, or the original id when its muid was seen before.
    func admit(_ request: CapturedRequest, message: CapturedMessage) -> CapturedRequest {
        state.withLock { state in
            var request = request
            if let muid = message.muid, let id = state.idsByMuid[muid] {
                request.outcome = .duplicate(id: id)
            } else {
                state.lastID += 1
                let id = String(state.lastID)
                if let muid = message.muid { state.idsByMuid[muid] = id }
                request.outcome = .accepted(id: id)
            }
            state.requests.append(request)
            return request
        }
    }

    /// Records a refused request.
    func record(_ request: CapturedRequest) {
        state.withLock { $0.requests.append(request) }
    }

    /// Every request recorded, in order.
    var requests: [CapturedRequest] {
        state.withLock { $0.requests }
    }
}
