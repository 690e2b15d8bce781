import Foundation
import KafkaIO
import Worker

/// `attache dev-broker`: a librdkafka mock cluster served over TCP until SIGTERM/SIGINT; the first line on standard
/// output is its bootstrap address list.
enum DevBrokerCommand {
    static func run(brokers: String?, port: String?) async -> Int32 {
        guard let count = Int(brokers ?? "1"), (1...9).contains(count) else {
            FileHandle.standardError.write(Data("attache dev-broker: --brokers takes a number from 1 to 9\n".utf8))
            return 2
        }
        guard let first = UInt16(port ?? "0") else {
            FileHandle.standardError.write(Data("attache dev-broker: --port takes a port number\n".utf8))
            return 2
        }
        guard first == 0 else {
            // librdkafka 2.0.2's mock brokers always listen on ports of their own choosing.
            FileHandle.standardError.write(Data("attache dev-broker: --port is not supported by this librdkafka; omit it and read the address from the first line\n".utf8))
            return 2
        }
        let cluster: MockKafkaCluster
        do {
            cluster = try MockKafkaCluster(brokers: count)
        } catch {
            FileHandle.standardError.write(Data("attache dev-broker: \(error)\n".utf8))
            return 1
        }
        FileHandle.standardOutput.write(Data((cluster.bootstrapServers + "\n").utf8))
        let shutdown = ShutdownSignal()
        SignalWatcher.install { _ in shutdown.request() }
        await shutdown.wait()
        withExtendedLifetime(cluster) {}
        return 0
    }
}
