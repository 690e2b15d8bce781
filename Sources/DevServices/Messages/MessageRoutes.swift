import EmbeddedHTTP
import Foundation
import WireFormat

/// The message capture's request handling; runs on connection threads.
struct MessageRoutes: Sendable {
    /// Path, api key and body limit.
    let configuration: MessageCapture.Configuration
    /// Where requests are recorded and muids deduplicated.
    let ledger: MessageLedger

    /// Routes one request head: `POST {path}` reads its JSON body, anything else is refused.
    func handle(_ head: HTTPRequestHead) -> HTTPRequestAction {
        if let refusal = PostOnlyRoute.refusal(of: head, path: configuration.path) { return refusal }
        return .readBody(CollectedBody(limit: configuration.requestBodyLimit) { body in
            answer(head, body: Data(body))
        })
    }

    private func answer(_ head: HTTPRequestHead, body: Data) -> ServerResponse {
        var request = CapturedRequest(apiKey: head.header("apikey"), onBehalfOf: head.header("onbehalfof"),
                                      traceparent: head.header("traceparent"), body: body, message: nil, outcome: .unauthorized)
        if let apiKey = configuration.apiKey, request.apiKey != apiKey {
            ledger.record(request)
            return JSONResponse.error(401, code: "AUTH_ERR_APIKEY_NOT_FOUND", message: "the api key is missing or wrong")
        }
        let message: CapturedMessage
        do {
            message = try CapturedMessage(reading: MalformedBody.fields(of: body))
            guard message.category == "message", ["user", "group"].contains(message.receiverType) else {
                throw DevServicesError(code: "ERR_BAD_REQUEST", message: "category must be message, receiverType user|group")
            }
        } catch {
            request.outcome = .malformed(String(describing: error))
            ledger.record(request)
            return JSONResponse.error(400, code: "ERR_BAD_REQUEST", message: "not a media message: \(error)")
        }
        request.message = message
        let admitted = ledger.admit(request, message: message)
        return JSONResponse.make(200, Self.reply(id: admitted.id ?? "", to: message, sender: request.onBehalfOf))
    }

    /// The answer, `{"data":{…}}`: the message as taken, with the id it was given (a repeated muid's first id);
    /// `muid` and `sender` are left out when the request had none.
    private static func reply(id: String, to message: CapturedMessage, sender: String?) -> JSONValue {
        var data: [String: JSONValue] = [
            "id": .string(id), "receiver": .string(message.receiver), "receiverType": .string(message.receiverType),
            "category": .string(message.category), "type": .string(message.type),
        ]
        if let muid = message.muid { data["muid"] = .string(muid) }
        if let sender { data["sender"] = .string(sender) }
        return ["data": .object(data)]
    }
}
