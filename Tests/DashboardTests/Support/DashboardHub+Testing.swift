@testable import Dashboard
import WireFormat

/// Why a test's expectation of the hub did not hold.
struct HubExpectation: Error, CustomStringConvertible {
    let description: String
}

extension DashboardHub {
    /// Opens a stream; throws when the hub refused it.
    func openedStream() throws -> (id: Int, snapshot: [UInt8]) {
        let opening = openStream()
        guard case .opened(let id, let snapshot) = opening else { throw HubExpectation(description: "stream not opened: \(opening)") }
        return (id, snapshot)
    }
}

extension DashboardHub.StreamStep {
    /// The JSON of a `delta` step: the message as the stream sends it is `event: delta`, then its JSON on one `data:`
    /// line and a blank line.
    func deltaJSON() throws -> JSONValue {
        guard case .delta(let message) = self else { throw HubExpectation(description: "expected a delta, got \(self)") }
        let text = String(decoding: message, as: UTF8.self)
        let prefix = "event: delta\ndata: "
        guard text.hasPrefix(prefix), text.hasSuffix("\n\n") else { throw HubExpectation(description: "not a delta message: \(text)") }
        return try JSONParser.parse(Array(text.dropFirst(prefix.count).dropLast(2).utf8))
    }
}
