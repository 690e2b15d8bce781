import Dashboard
import Worker

extension DashboardSettings {
    /// The dashboard's settings from the worker's configuration; `listen` and `token` (the command's flags) override
    /// `dashboard.listen` and `dashboard.token`.
    ///
    /// - Throws: `ConfigurationError` when the listen address is not `host:port`.
    init(_ configuration: AttacheConfiguration, listen: String? = nil, token: String? = nil) throws {
        let address = listen ?? configuration.dashboard.listen
        guard let (host, port) = AttacheConfiguration.hostAndPort(address) else {
            throw ConfigurationError(key: "dashboard.listen", "'\(address)' is not host:port")
        }
        let settings = configuration.dashboard, topics = configuration.kafka
        self.init(host: host, port: port,
                  topics: FeedTopics(events: topics.eventsTopic, jobs: topics.jobsTopic, deadLetters: topics.dlqTopic),
                  limits: configuration.limits, maxBatches: settings.maxBatches, maxClients: settings.maxClients,
                  allowedHosts: settings.allowedHosts, token: token ?? settings.token)
    }
}
