import Foundation
import KafkaIO
import UploadEngine

/// One dashboard, its parts wired together: the hub, the HTTP server on `dashboard.listen`, the feed from the
/// topics and — with controls allowed — the producer of control records. What `attache dashboard` and
/// `attache demo --dashboard` run.
public final class DashboardRuntime: Sendable {
    public let hub: DashboardHub
    public let server: DashboardServer
    private let feed: DashboardFeed
    private let controls: KafkaControlSink?

    /// Starts serving at once (the page shows the history as it is read); the feed runs in ``run(waiting:)``.
    ///
    /// - Parameters:
    ///   - settings: where to listen, the topics, the limits and `dashboard.*` as validated.
    ///   - kafka: the Kafka client settings the feed and the control producer use.
    ///   - allowControls: offer the control buttons and take control requests.
    ///   - since: skip records older than this.
    /// - Throws: `EmbeddedHTTPError` when the address cannot be listened on; `KafkaError` for a refused property.
    public init(settings: DashboardSettings, kafka: KafkaConfiguration, allowControls: Bool, since: Date?) throws {
        hub = DashboardHub(limits: DashboardLimits(maxBatches: settings.maxBatches), streams: StreamLimits(maxClients: settings.maxClients),
                           controls: allowControls)
        controls = allowControls ? try KafkaControlSink(kafka: kafka, jobsTopic: settings.topics.jobs) : nil
        server = try DashboardServer(host: settings.host, port: settings.port, hub: hub, controls: controls,
                                     access: DashboardAccess(allowedHosts: settings.allowedHosts, token: settings.token))
        feed = DashboardFeed(kafka: kafka, folder: FeedRecordFolder(topics: settings.topics, limits: settings.limits, since: since), hub: hub)
    }

    /// The page's address: `http://host:port/`.
    public var pageURL: String { server.baseURL + "/" }

    /// Reads the topics until cancelled or a read fails for good.
    public func run(waiting: @Sendable (String) -> Void = { _ in }) async throws {
        try await feed.run(waiting: waiting)
    }

    /// Ends the streams, stops the server and closes the control producer.
    public func stop() async {
        server.stop()
        await controls?.close()
    }
}
