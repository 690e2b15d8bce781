import EmbeddedHTTP
import Records
import WireFormat

/// A control button's request (`POST /api/control`, `{"kind","batchId","fileId"}`), checked before anything is
/// produced: only the kinds the page offers (`retry` and `remove` of a file, `send` of a batch), with the fields
/// each needs, from a page of this dashboard.
enum ControlRequest {
    /// The kinds the page has buttons for; `clear` and `configure` stay with `attache control`.
    static let offered: Set<ControlRecord.Kind> = [.retry, .remove, .send]

    /// Why a request is refused: the status and the message.
    struct Refusal: Error {
        let status: Int
        let message: String
    }

    /// Refuses a request a page of this dashboard would not send. Browsers send `Origin` with every POST, and a
    /// cross-site page cannot send `application/json` or the CSRF header without a preflight this server never
    /// answers; the CSRF token itself is only in the page this dashboard served. So a form or script elsewhere
    /// cannot press the buttons.
    static func checkHead(_ head: HTTPRequestHead, csrf: CSRFToken) throws(Refusal) {
        guard head.header("content-type")?.lowercased().hasPrefix("application/json") == true else {
            throw Refusal(status: 415, message: "controls take application/json")
        }
        if let origin = head.header("origin"), let host = head.header("host"), origin != "http://\(host)", origin != "https://\(host)" {
            throw Refusal(status: 403, message: "controls are only taken from the dashboard's own page")
        }
        if let site = head.header("sec-fetch-site"), site != "same-origin", site != "none" {
            throw Refusal(status: 403, message: "controls are only taken from the dashboard's own page")
        }
        guard csrf.isCarried(by: head) else {
            throw Refusal(status: 403, message: "controls need the CSRF token of the dashboard's page (\(CSRFToken.header)); reload the page")
        }
    }

    /// The control record the body asks for.
    static func record(from body: [UInt8]) throws(Refusal) -> ControlRecord {
        guard let value = try? JSONParser.parse(body), value.objectValue != nil else {
            throw Refusal(status: 400, message: "the body must be a JSON object")
        }
        let kind = value["kind"]?.stringValue ?? ""
        guard let known = ControlRecord.Kind(rawValue: kind), offered.contains(known) else {
            throw Refusal(status: 400, message: "the dashboard sends retry, remove and send controls")
        }
        do {
            return try ControlRecord(kind: kind, batchId: value["batchId"]?.stringValue, fileId: value["fileId"]?.stringValue,
                                     concurrency: nil)
        } catch {
            throw Refusal(status: 400, message: error.description)
        }
    }
}
