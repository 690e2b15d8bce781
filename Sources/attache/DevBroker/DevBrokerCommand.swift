import DevServices
import Foundation
import KafkaIO
import Worker

/// `attache dev-broker`: a librdkafka mock cluster served over TCP until SIGTERM/SIGINT; the first line on standard
/// output is its bootstrap address list. With `--faults` it then reads fault commands (``MockClusterFault``) from
/// standard input, one a line, and answers each with one line: `ok` or `error: <why>`. With `--services` it also
/// serves the embedded presign endpoint, object store and message API on 127.0.0.1 and prints, after the bootstrap
/// line, the `ATTACHE_*` settings a worker and the commands need to use all of them.
enum DevBrokerCommand {
    /// The message API key the services take.
    static let servicesAPIKey = "dev-api-key"

    static func run(brokers: String?, port: String?, faults: Bool, services: Bool) async -> Int32 {
        guard let count = Int(brokers ?? "1"), (1...9).contains(count) else {
            FileHandle.standardError.write(Data("attache dev-broker: --brokers takes a number from 1 to 9\n".utf8))
            return 2
        }
        guard let first = UInt16(port ?? "0") else {
            FileHandle.standardError.write(Data("attache dev-broker: --port takes a port number\n".utf8))
            return 2
        }
        let cluster: MockKafkaCluster
        var forwarder: BootstrapForwarder?
        var embedded: EmbeddedServices?
        do {
            cluster = try MockKafkaCluster(brokers: count)
            if services { embedded = try EmbeddedServices(configuration: .init(messages: .init(apiKey: servicesAPIKey))) }
            // librdkafka's mock brokers choose their own ports; a fixed port is a bootstrap forwarder in front.
            if first != 0 {
                let broker = cluster.bootstrapServers.split(separator: ",").first.map(String.init) ?? cluster.bootstrapServers
                forwarder = try BootstrapForwarder(port: first, forwardingTo: broker)
            }
        } catch {
            FileHandle.standardError.write(Data("attache dev-broker: \(error)\n".utf8))
            return 1
        }
        let bootstrap = forwarder.map { "127.0.0.1:\($0.port)" } ?? cluster.bootstrapServers
        FileHandle.standardOutput.write(Data((bootstrap + "\n").utf8))
        if let embedded {
            let settings = ["ATTACHE_KAFKA_BROKERS=\(bootstrap)", "ATTACHE_PRESIGN_URL=\(embedded.presignURL)",
                            "ATTACHE_MESSAGES_URL=\(embedded.messagesURL)", "ATTACHE_MESSAGES_API_KEY=\(servicesAPIKey)"]
            FileHandle.standardOutput.write(Data(settings.map { $0 + "\n" }.joined().utf8))
        }
        if faults {
            // readLine blocks, so the commands get a thread of their own; the answers follow the bootstrap line.
            Thread.detachNewThread { [cluster] in readFaults(into: cluster, brokers: Int32(count)) }
        }
        let shutdown = ShutdownSignal()
        TerminationSignals.watch { _ in shutdown.request() }
        await shutdown.wait()
        forwarder?.stop()
        embedded?.stop()
        withExtendedLifetime(cluster) {}
        return 0
    }

    /// Applies fault commands from standard input until it ends; the cluster keeps running after that.
    private static func readFaults(into cluster: MockKafkaCluster, brokers: Int32) {
        while let line = readLine(strippingNewline: true) {
            let answer: String
            do {
                cluster.apply(try MockClusterFault.parse(line, brokers: brokers))
                answer = "ok"
            } catch {
                answer = "error: \(error)"
            }
            FileHandle.standardOutput.write(Data((answer + "\n").utf8))
        }
    }
}
