import EmbeddedHTTP
import Foundation

/// A local object store served over HTTP on 127.0.0.1: PUT, GET, HEAD and DELETE of objects under signed,
/// expiring URLs, stored as files in a directory it owns.
///
/// URLs are `http://127.0.0.1:<port>/<key>?expires=<epoch seconds>&sig=<hex HMAC-SHA256>`; see `signedURL`.
/// PUT and DELETE need a signature. GET and HEAD need none when `publicRead` is on (the default: the unsigned URL
/// is the attachment's long-lived `fileUrl`), but a signature they do carry is checked. An expired URL answers
/// 403 `AccessDenied` "Request has expired"; a wrong signature 403 `SignatureDoesNotMatch` (S3-style XML).
///
/// Every upload streams to a partial file, hashed as it goes, and is renamed into place when complete; a cut-off
/// upload leaves nothing behind. Thread-safe; each connection is served on a thread of its own.
public final class LocalObjectStore: Sendable {
    /// Faults this store shows; `FaultTarget.fileId` matches keys laid out `{batchId}/{fileId}/…`.
    public let faults: FaultPlan
    /// The directory holding `objects/` and `partial/`.
    public let directory: URL
    /// The files and their index.
    let storage: ObjectStorage
    /// Signs and checks this store's URLs.
    let signer: URLSigner
    /// The configuration it was started with.
    let configuration: Configuration
    private let server: EmbeddedHTTPServer
    private let ownsDirectory: Bool

    /// Prepares the directory and starts listening on 127.0.0.1.
    public init(configuration: Configuration = Configuration(), faults: FaultPlan = FaultPlan()) throws {
        let ownsDirectory = configuration.directory == nil
        let directory = configuration.directory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("attache-objects-\(UUID().uuidString)", isDirectory: true)
        let storage = try ObjectStorage(root: directory)
        let signer = URLSigner()
        let routes = ObjectRoutes(storage: storage, signer: signer, configuration: configuration)
        let injection = FaultInjection(plan: faults) { head in
            (try? ObjectKey(String(head.path.dropFirst())))?.fileId
        }
        do {
            server = try EmbeddedHTTPServer.loopback(port: configuration.port, handler: injection.wrap(routes.handle))
        } catch {
            if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
            throw error
        }
        self.faults = faults
        self.directory = directory
        self.storage = storage
        self.signer = signer
        self.configuration = configuration
        self.ownsDirectory = ownsDirectory
    }

    /// The bound port.
    public var port: UInt16 { server.port }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { server.baseURL }

    /// Ends stalls, stops serving (port closed on return) and, if the store created its directory, deletes it.
    /// Idempotent. Read what you need from the store before stopping it.
    public func stop() {
        faults.shutDown()
        server.stop()
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }

    deinit {
        stop()
    }
}
