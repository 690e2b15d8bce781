import Foundation
import KafkaIO
import Worker

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
    ///   - configuration: topics, limits and `dashboard.*` as validated; `listen` overrides `dashboard.listen`.
    ///   - kafka: the Kafka client settings the feed and the control producer use.
    ///   - allowControls: offer the control buttons and take control requests.
    ///   - token: the token every request needs; overrides `dashboard.token`.
    ///   - since: skip records older than this.
    /// - Throws: `EmbeddedHTTPError` when the address cannot be listened on; `KafkaError` for a refused property.
    public init(configuration: AttacheConfiguration, kafka: KafkaConfiguration, listen: String? = nil, allowControls: Bool,
                token: String? = nil, since: Date?) throws {
        let address = listen ?? configuration.dashboard.listen
        guard let (host, port) = AttacheConfiguration.hostAndPort(address) else {
            throw ConfigurationError(key: "dashboard.listen", "'\(address)' is not host:port")
        }
        let settings = configuration.dashboard
        hub = DashboardHub(limits: DashboardLimits(maxBatches: settings.maxBatches), streams: StreamLimits(maxClients: settings.maxClients),
                           controls: allowControls)
        let topics = configuration.kafka
        controls = allowControls ? try KafkaControlSink(kafka: kafka, jobsTopic: topics.jobsTopic) : nil
        server = try DashboardServer(host: host, port: port, hub: hub, controls: controls,
                                     access: DashboardAccess(allowedHosts: settings.allowedHosts, token: token ?? settings.token))
        feed = DashboardFeed(kafka: kafka, folder: FeedRecordFolder(
            topics: FeedTopics(events: topics.eventsTopic, jobs: topics.jobsTopic, deadLetters: topics.dlqTopic),
            limits: configuration.limits, since: since), hub: hub)
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
