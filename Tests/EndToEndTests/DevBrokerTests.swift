import Foundation
import Testing
import TestSupport

/// `attache dev-broker` as other processes see it.
@Suite(.timeLimit(.minutes(2))) struct DevBrokerTests {
    @Test func aFixedPortBootstrapsKcatRoundTrips() async throws {
        let port = UInt16(try LoopbackPort.free())
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("attache-devbroker-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workspace) }
        let broker = try ChildProcess(name: "fixed-broker", executable: EndToEndEnvironment.attacheBinary,
                                      arguments: ["dev-broker", "--port", String(port)], directory: workspace)
        let bootstrap = try await broker.firstLine(timeout: .seconds(20))
        #expect(bootstrap == "127.0.0.1:\(port)")
        try await Kcat.produce(brokers: bootstrap, topic: "fixed-port", [(key: "k", value: #"{"hello":"kafka"}"#)])
        let records = try await eventually("the record to be readable") {
            let records = try await Kcat.consume(brokers: bootstrap, topic: "fixed-port")
            return records.isEmpty ? nil : records
        }
        #expect(records.map(\.value) == [#"{"hello":"kafka"}"#])
        broker.signal(SIGTERM)
        #expect(await broker.waitForExit(timeout: .seconds(10)) == 0)
    }

    /// The README's quick start: `dev-broker --services`, a worker on the settings it prints and nothing else, and
    /// `submit --watch` of a local file, which exits 0 once the file is uploaded and sent.
    @Test func theQuickStartUploadsAFileOnTheServicesTheBrokerServes() async throws {
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("attache-quickstart-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workspace) }
        let services = try await ServicesBroker.start(name: "quickstart-broker", in: workspace)
        let broker = services.process, settings = services.settings
        defer { broker.signal(SIGTERM) }
        #expect(Set(settings.keys) == ["ATTACHE_KAFKA_BROKERS", "ATTACHE_PRESIGN_URL", "ATTACHE_MESSAGES_URL", "ATTACHE_MESSAGES_API_KEY"])
        #expect(settings["ATTACHE_KAFKA_BROKERS"] == broker.standardOutput.split(separator: "\n").first.map(String.init))
        // Only what a fresh machine would lack besides those: a free admin port (the default may be taken here).
        let worker = try ChildProcess(name: "quickstart-worker", executable: EndToEndEnvironment.attacheBinary, arguments: ["worker"],
                                      environment: settings.merging(["ATTACHE_ADMIN_LISTEN": "127.0.0.1:0"]) { $1 }, directory: workspace)
        defer { worker.signal(SIGTERM) }
        let photo = workspace.appendingPathComponent("photo.jpg")
        try Jobs.bytes(magic: Jobs.jpeg, size: 30_000, seed: 9).write(to: photo)
        let submit = try ChildProcess(name: "quickstart-submit", executable: EndToEndEnvironment.attacheBinary,
                                      arguments: ["submit", "--to", "user:uid-1", "--watch", photo.path],
                                      environment: ["ATTACHE_KAFKA_BROKERS": settings["ATTACHE_KAFKA_BROKERS"] ?? ""], directory: workspace)
        #expect(await submit.waitForExit(timeout: .seconds(90)) == 0, "\(submit.standardError)\n\(worker.standardError)")
        let lines = submit.standardOutput.split(separator: "\n")
        #expect(lines.contains { $0.contains("attache.file.uploaded") } && lines.contains { $0.contains("attache.message.sent") })
    }

    @Test func unknownFlagsExitWithUsage() async throws {
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("attache-usage-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workspace) }
        let run = try ChildProcess(name: "usage", executable: EndToEndEnvironment.attacheBinary,
                                   arguments: ["dev-broker", "--partitions", "3"], directory: workspace)
        #expect(await run.waitForExit(timeout: .seconds(10)) == 2)
        #expect(run.standardError.contains("unknown option '--partitions'"))
    }
}
