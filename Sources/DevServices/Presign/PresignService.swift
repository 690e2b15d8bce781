import EmbeddedHTTP
import Foundation

/// The presign endpoint of `docs/wire-format.md#presign-endpoint` over HTTP on 127.0.0.1, authorising uploads into a
/// `LocalObjectStore`.
///
/// `POST {path}` with `{"batchId","receiver":{"id","type"},"sender","parentMessageId","files":[…]}` answers
/// `200 {"files":[…]}`, one entry per file in request order: a target (`uploadUrl` signed for PUT on
/// `{batchId}/{fileId}/{safe name}` — see `ObjectKeyLayout` — with `method` `PUT`, `headers` `content-type`, the
/// unsigned public `fileUrl` of the object and `expiresAt` in ISO-8601) or a refusal by `PresignPolicy`.
/// A body that is not such JSON answers 400 `{"error":{"code":"ERR_BAD_REQUEST",…}}`.
///
/// Every well-formed call is recorded (`calls`); calls answered by an injected transport fault are recorded by the
/// `FaultPlan` instead. Thread-safe; each connection is served on a thread of its own.
public final class PresignService: Sendable {
    /// Faults this service shows: transport faults, and the presign faults per call or per file id.
    public let faults: FaultPlan
    /// The store the upload URLs point into.
    public let store: LocalObjectStore
    /// The configuration it was started with.
    public let configuration: Configuration
    private let log = PresignCallLog()
    private let server: EmbeddedHTTPServer

    /// Starts listening on 127.0.0.1, presigning into `store` (which the caller keeps and stops).
    public init(store: LocalObjectStore, configuration: Configuration = Configuration(),
                faults: FaultPlan = FaultPlan()) throws {
        self.store = store
        self.configuration = configuration
        self.faults = faults
        let routes = PresignRoutes(store: store, configuration: configuration, faults: faults, log: log)
        let injection = FaultInjection(plan: faults) { _ in nil }
        server = try EmbeddedHTTPServer.loopback(port: configuration.port, handler: injection.wrap(routes.handle))
    }

    /// The bound port.
    public var port: UInt16 { server.port }

    /// `http://127.0.0.1:<port>{path}`: the `presign.url` to configure.
    public var url: String { "http://127.0.0.1:\(port)\(configuration.path)" }

    /// Every well-formed call so far, in completion order.
    public var calls: [PresignCall] {
        log.calls
    }

    /// Ends stalls and stops serving (port closed on return). Idempotent; the store keeps running.
    public func stop() {
        faults.shutDown()
        server.stop()
    }

    deinit {
        stop()
    }
}
