import Foundation
@testable import KafkaIO
import Testing

/// The threads KafkaIO starts carry their names into the system, where `top -H`, `ps -L` and perf read them.
@Suite(.timeLimit(.minutes(1))) struct DedicatedThreadTests {
    @Test func aThreadNamesItselfWithTheFirstFifteenBytesOfItsName() async throws {
        let name = try await DedicatedThread.run(name: "kafka-partition-read") { () -> Result<String, KafkaError> in
            .success((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
        }
        #expect(name == "kafka-partition\n")
    }
}
