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
