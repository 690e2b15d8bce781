import DevServices
import Foundation
import WireFormat

/// One broker (`attache dev-broker`), one set of loopback services and a source root, shared by the end-to-end suites:
/// the mock cluster's first group rebalance costs seconds, so it is paid once.
final class EndToEndEnvironment: Sendable {
    let workspace: URL
    let sourceRoot: URL
    let broker: ChildProcess
    let brokers: String
    let services: EmbeddedServices
    static let apiKey = "e2e-api-key"

    static let shared = Task { try await EndToEndEnvironment() }

    private init() async throws {
        workspace = FileManager.default.temporaryDirectory.appendingPathComponent("attache-e2e-\(UUID().uuidString.prefix(8))")
        sourceRoot = workspace.appendingPathComponent("sources")
        try FileManager.default.createDirectory(at: sourceRoot, withIntermediateDirectories: true)
        broker = try ChildProcess(name: "broker", executable: Self.attacheBinary, arguments: ["dev-broker"], directory: workspace)
        brokers = try await broker.firstLine(timeout: .seconds(20))
        services = try EmbeddedServices(configuration: .init(messages: .init(apiKey: Self.apiKey)))
    }

    /// The `attache` executable built next to this test bundle.
    static var attacheBinary: String {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("attache").path,
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug/attache").path,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[1]
    }

    /// Starts `attache worker` against the shared broker and services.
    /// `brokers` points it at another cluster than the shared one.
    func startWorker(name: String, group: String, jobsTopic: String = "attache.jobs", eventsTopic: String = "attache.events",
                     brokers: String? = nil, extra: [String: String] = [:]) throws -> ChildProcess {
        var environment = [
            "ATTACHE_KAFKA_BROKERS": brokers ?? self.brokers, "ATTACHE_KAFKA_GROUP_ID": group, "ATTACHE_KAFKA_JOBS_TOPIC": jobsTopic,
            "ATTACHE_KAFKA_EVENTS_TOPIC": eventsTopic, "ATTACHE_KAFKA_CREATE_TOPICS": "false",
            // A changelog per jobs topic: its partition count must match that jobs topic's (a test creating the jobs
            // topic with a chosen count creates this one alike; auto-created ones both get the broker's default).
            "ATTACHE_KAFKA_BATCHES_TOPIC": Self.changelog(of: jobsTopic),
            "ATTACHE_PRESIGN_URL": services.presignURL, "ATTACHE_MESSAGES_URL": services.messagesURL,
            "ATTACHE_MESSAGES_API_KEY": Self.apiKey, "ATTACHE_ADMIN_LISTEN": "127.0.0.1:0",
            "ATTACHE_STAGING_DIR": workspace.appendingPathComponent("staging-\(name)").path,
            "ATTACHE_SOURCES_ROOT": sourceRoot.path, "ATTACHE_WORKER_ID": name,
            "ATTACHE_RETRY_BASE_DELAY": "100ms", "ATTACHE_RETRY_MAX_DELAY": "1s",
            "ATTACHE_LOG_FORMAT": "text", "ATTACHE_LOG_LEVEL": "info",
            // A killed member must be noticed in seconds, not the default 45.
            "ATTACHE_KAFKA_PROPERTY_SESSION_TIMEOUT_MS": "6000", "ATTACHE_KAFKA_PROPERTY_HEARTBEAT_INTERVAL_MS": "500",
        ]
        environment.merge(extra) { $1 }
        return try ChildProcess(name: name, executable: Self.attacheBinary, arguments: ["worker"], environment: environment,
                                directory: workspace)
    }

    /// The batch changelog the workers of a jobs topic use.
    static func changelog(of jobsTopic: String) -> String { "\(jobsTopic).batches" }

    /// Every event on `topic` so far, decoded.
    func events(topic: String = "attache.events") async throws -> [ReceivedEvent] {
        try await Kcat.consume(brokers: brokers, topic: topic).compactMap { ReceivedEvent(json: $0.value) }
    }

    /// Every event about `batchId` so far.
    func events(of batchId: String, topic: String = "attache.events") async throws -> [ReceivedEvent] {
        try await events(topic: topic).filter { $0.subject == batchId }
    }
}

/// A CloudEvent as read back from the events topic.
struct ReceivedEvent {
    /// The CloudEvents `id`: a consumer drops a repeat by it.
    let id: String
    let type: String
    let subject: String
    let sequence: Int
    /// The CloudEvents `source`: `attache/<worker id>`.
    let source: String
    let data: [String: JSONValue]
    /// The distributed-tracing extension attributes, when the event has them.
    let traceparent: String?
    let tracestate: String?

    init?(json: String) {
        guard let object = try? JSONParser.parse(json.utf8),
              let type = object["type"]?.stringValue, let subject = object["subject"]?.stringValue,
              let data = object["data"]?.objectValue else { return nil }
        self.id = object["id"]?.stringValue ?? ""
        self.type = type
        self.subject = subject
        self.sequence = Int(object["sequence"]?.stringValue ?? "") ?? -1
        self.source = object["source"]?.stringValue ?? ""
        self.data = data
        self.traceparent = object["traceparent"]?.stringValue
        self.tracestate = object["tracestate"]?.stringValue
    }

    var fileId: String? { data["fileId"]?.stringValue }
    var errorCode: String? { data["error"]?["code"]?.stringValue }
    var result: [String: JSONValue]? { data["result"]?.objectValue }

    func fileIds(in list: String) -> [String] {
        result?[list]?.arrayValue?.compactMap { $0["fileId"]?.stringValue } ?? []
    }
}
