/// The three dev services together on 127.0.0.1: object store, presign service and message capture.
///
/// What `attache demo` and integration tests start: configure a worker with `presignURL` and `messagesURL`,
/// inspect `store`, `presign.calls` and `messages.requests`, switch faults through each service's `faults`.
public final class EmbeddedServices: Sendable {
    /// The local object store the presigned URLs point into.
    public let store: LocalObjectStore
    /// The presign endpoint.
    public let presign: PresignService
    /// The message API capture.
    public let messages: MessageCapture

    /// Starts all three, each on an ephemeral port unless configured; stops those started if one fails.
    public init(configuration: Configuration = Configuration()) throws {
        let store = try LocalObjectStore(configuration: configuration.store)
        do {
            presign = try PresignService(store: store, configuration: configuration.presign)
        } catch {
            store.stop()
            throw error
        }
        do {
            messages = try MessageCapture(configuration: configuration.messages)
        } catch {
            presign.stop()
            store.stop()
            throw error
        }
        self.store = store
    }

    /// The presign endpoint's URL (`presign.url` in the worker's configuration).
    public var presignURL: String { presign.url }

    /// The message API's URL (`messages.url` in the worker's configuration).
    public var messagesURL: String { messages.url }

    /// The object store's base URL.
    public var storeURL: String { store.baseURL }

    /// Stops all three (ports closed on return; the store's own temporary directory is deleted). Idempotent.
    public func stop() {
        presign.stop()
        messages.stop()
        store.stop()
    }
}
