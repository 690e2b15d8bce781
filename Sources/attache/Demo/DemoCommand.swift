import Dashboard
import DevServices
import Foundation
import KafkaIO
import UploadEngine
import WireFormat
import Worker

/// `attache demo`: the whole pipeline on embedded components — a Kafka mock cluster, an object store, a presign
/// service and a message API, all in this process on 127.0.0.1 — with a worker taking one realistic batch from the
/// jobs topic and everything it publishes shown as it happens. With `--dashboard` the live dashboard runs beside it
/// on the same cluster, and everything stays up after the story until SIGINT/SIGTERM.
enum DemoCommand {
    static let batchId = "trip-42"

    static func run(dashboard: Bool = false) async -> Int32 {
        do {
            return try await runScenario(dashboard: dashboard)
        } catch {
            FileHandle.standardError.write(Data("attache demo: \(error)\n".utf8))
            return 1
        }
    }

    private static func runScenario(dashboard withDashboard: Bool) async throws -> Int32 {
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("attache-demo-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: workspace) }
        let sourceRoot = workspace.appendingPathComponent("sources")
        let sizeLimit: Int64 = 16 * 1024 * 1024
        let files = DemoFiles.batch(sizeLimit: sizeLimit)
        for file in files {
            guard let bytes = file.onDisk, case .path(let relative) = file.item.source else { continue }
            let url = sourceRoot.appendingPathComponent(relative)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try bytes.write(to: url)
        }

        let cluster = try MockKafkaCluster(brokers: 1)
        let services = try EmbeddedServices(configuration: .init(messages: .init(apiKey: "demo-api-key")))
        defer { services.stop() }
        // The voice note's first upload meets a 503; the video trickles in so its progress is visible.
        services.store.faults.inject(.serverError(status: 503, retryAfter: nil), target: .fileId("voice"), times: 1)
        services.store.faults.inject(.trickleRequestBody(bytesPerSecond: 3 * 1024 * 1024), target: .fileId("clip"))

        var configuration = AttacheConfiguration()
        configuration.kafka.brokers = cluster.bootstrapServers
        configuration.kafka.createTopics = false
        configuration.presign.url = services.presignURL
        configuration.messages.url = services.messagesURL
        configuration.messages.apiKey = "demo-api-key"
        configuration.limits.fileSizeMax = sizeLimit
        configuration.retry = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(300), maxDelay: .seconds(5))
        configuration.staging.dir = workspace.appendingPathComponent("staging").path
        configuration.sources.root = sourceRoot.path
        configuration.adminListen = "127.0.0.1:0"
        configuration.worker.id = "demo-worker"
        configuration.log.level = .warn
        configuration.log.format = .text
        try configuration.validate()
        let dashboard = try withDashboard ? startDashboard(configuration) : nil
        defer { dashboard?.feed.cancel() }

        print("""
        attache demo — the whole pipeline on embedded components, all on 127.0.0.1
          Kafka (mock)  \(cluster.bootstrapServers)
          object store  \(services.storeURL)
          presign       \(services.presignURL)
          message API   \(services.messagesURL)\(dashboard.map { "\n  dashboard     \($0.runtime.pageURL)" } ?? "")

        starting a worker (group \(configuration.kafka.groupId)) and a viewer of \(configuration.kafka.eventsTopic)…
        """)

        let shutdown = ShutdownSignal()
        let ready = ShutdownSignal()
        let worker = KafkaWorker(configuration: configuration, logger: Logger(level: .warn, format: .text))
        let running = Task { try await worker.run(shutdown: shutdown, onReady: { ready.request() }) }
        // The viewer fetches eagerly so events show up as they happen.
        let viewer = try KafkaConsumer(configuration: KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, groupID: "demo-viewer",
                                                                         properties: ["fetch.wait.max.ms": "20"]),
                                       topics: [configuration.kafka.eventsTopic])
        for await event in viewer.events {
            if case .assigned = event { break }
        }
        await ready.wait()

        let job = DemoJob.record(batchId: batchId, files: files.map(\.item))
        let producer = try KafkaProducer(configuration: KafkaConfiguration(bootstrapServers: cluster.bootstrapServers))
        _ = try await producer.send(topic: configuration.kafka.jobsTopic, key: Data(batchId.utf8), value: job)
        print("\nproduced job req-7f3 for batch \(batchId) (user cometchat-uid-1): \(files.count) files, concurrency 3, size limit 16 MiB\n")

        let started = Date()
        var result: JSONValue?
        var sentMessages = 0
        var retried = false
        for await record in viewer.records {
            viewer.markFinished(record)
            guard let value = record.value, let event = try? JSONParser.parse(value), event.objectValue != nil else { continue }
            if let line = DemoEventLine.line(for: event) {
                print("  \(String(format: "%6.2fs", Date().timeIntervalSince(started)))  \(line)")
            }
            let data = event["data"]
            switch event["type"]?.stringValue {
            case "attache.batch.completed": result = data?["result"].flatMap { $0.objectValue != nil ? $0 : nil }
            case "attache.message.sent": sentMessages += 1
            case "attache.file.failed" where data?["fileId"]?.stringValue == "voice": retried = data?["willRetry"]?.boolValue == true
            default: break
            }
            if result != nil, sentMessages >= 4 { break }
        }

        try? await viewer.close()
        if let dashboard {
            // The story is told; the dashboard, the worker and the cluster stay for a look around.
            printMessages(services.messages.messages)
            printResult(result)
            let status = verdict(result, retried: retried, messages: services.messages.messages)
            print("""

            the dashboard stays up at \(dashboard.runtime.pageURL) — with the worker and Kafka at \(cluster.bootstrapServers)
            (ATTACHE_KAFKA_BROKERS=\(cluster.bootstrapServers) attache submit --to user:uid-1 FILE adds a batch). Ctrl-C stops everything.
            """)
            let stop = ShutdownSignal()
            TerminationSignals.watch { _ in stop.request() }
            await stop.wait()
            shutdown.request()
            try await running.value
            try? await producer.close()
            dashboard.feed.cancel()
            await dashboard.runtime.stop()
            return status
        }
        shutdown.request()
        try await running.value
        try? await producer.close()

        printMessages(services.messages.messages)
        printResult(result)
        return verdict(result, retried: retried, messages: services.messages.messages)
    }

    /// The dashboard on `dashboard.listen` (another port when that one is taken), fed from the demo's cluster.
    private static func startDashboard(_ configuration: AttacheConfiguration) throws -> (runtime: DashboardRuntime, feed: Task<Void, Never>) {
        let kafka = KafkaConfiguration(bootstrapServers: configuration.kafka.brokers, clientID: "attache-demo-dashboard")
        let runtime: DashboardRuntime
        do {
            runtime = try DashboardRuntime(settings: DashboardSettings(configuration), kafka: kafka, allowControls: true, since: nil)
        } catch {
            runtime = try DashboardRuntime(settings: DashboardSettings(configuration, listen: "127.0.0.1:0"), kafka: kafka, allowControls: true,
                                           since: nil)
        }
        return (runtime, Task { try? await runtime.run() })
    }

    private static func printMessages(_ messages: [CapturedRequest]) {
        print("\nmessages received by the message API, in order:")
        for request in messages {
            guard let message = request.message else { continue }
            let names = message.data.attachments.map(\.name).joined(separator: ", ")
            let caption = message.data.text.map { " — \"\($0)\"" } ?? ""
            print("  \(message.type.padding(toLength: 6, withPad: " ", startingAt: 0)) \(message.data.attachments.count) attachment(s): \(names)\(caption)")
        }
    }

    private static func printResult(_ result: JSONValue?) {
        guard let result else { return }
        var json = JSONWriter(capacity: 4096)
        json.indentedValue(result)
        print("\nfinal UploadResult:")
        print(json.string())
    }

    /// The demo checks its own story: five uploads (one after a retry), one rejection, four messages in type order.
    private static func verdict(_ result: JSONValue?, retried: Bool, messages: [CapturedRequest]) -> Int32 {
        let ids = { (key: String) in (result?[key]?.arrayValue ?? []).compactMap { $0["fileId"]?.stringValue } }
        guard ids("successful").count == 5, ids("rejected") == ["raw-footage"], ids("failed").isEmpty, retried,
              messages.compactMap(\.message).map(\.type) == ["image", "video", "audio", "file"] else {
            print("\nthe demo did not go as expected")
            return 1
        }
        print("\nall files accounted for: 5 uploaded (the voice note after one retry), 1 rejected, 4 messages sent.")
        return 0
    }
}
