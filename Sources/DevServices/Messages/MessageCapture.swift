import EmbeddedHTTP

/// A CometChat-compatible message API over HTTP on 127.0.0.1 that records what it is sent
/// (`docs/wire-format.md#http-messages`).
///
/// `POST {path}` (default `/v3/messages`) with a media message answers
/// `200 {"data":{"id":"<n>","muid":…,"receiver","receiverType","category","type","sender"}}`. A message whose
/// `muid` was already accepted is a duplicate: it answers the original id and is not a new message. With an api key
/// configured, a missing or different `apikey` header answers 401. A body that is not a message (JSON with
/// `receiver`, `receiverType`, `category` `message`, `type`, `data.attachments`) answers 400.
///
/// Every request the capture answers itself is recorded (`requests`); requests answered by an injected transport
/// fault are recorded by the `FaultPlan` instead. Thread-safe; each connection is served on a thread of its own.
public final class MessageCapture: Sendable {
    /// Faults this service shows (transport faults).
    public let faults: FaultPlan
    /// The configuration it was started with.
    public let configuration: Configuration
    private let ledger = MessageLedger()
    private let server: EmbeddedHTTPServer

    /// Starts listening on 127.0.0.1.
    public init(configuration: Configuration = Configuration(), faults: FaultPlan = FaultPlan()) throws {
        self.configuration = configuration
        self.faults = faults
        let routes = MessageRoutes(configuration: configuration, ledger: ledger)
        let injection = FaultInjection(plan: faults) { _ in nil }
        server = try EmbeddedHTTPServer.loopback(port: configuration.port, handler: injection.wrap(routes.handle))
    }

    /// The bound port.
    public var port: UInt16 { server.port }

    /// `http://127.0.0.1:<port>{path}`: the `messages.url` to configure.
    public var url: String { "http://127.0.0.1:\(port)\(configuration.path)" }

    /// Every request answered, duplicates and refusals included, in arrival order.
    public var requests: [CapturedRequest] {
        ledger.requests
    }

    /// The distinct messages accepted (first request per `muid`), in acceptance order.
    public var messages: [CapturedRequest] {
        ledger.requests.filter { if case .accepted = $0.outcome { true } else { false } }
    }

    /// The requests that repeated an accepted `muid`.
    public var duplicates: [CapturedRequest] {
        ledger.requests.filter { if case .duplicate = $0.outcome { true } else { false } }
    }

    /// Ends stalls and stops serving (port closed on return). Idempotent.
    public func stop() {
        faults.shutDown()
        server.stop()
    }

    deinit {
        stop()
    }
}
