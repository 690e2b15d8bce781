import Foundation
import Testing
@testable import KafkaIO

/// librdkafka's threads get a millisecond of timer slack, so a broker thread's wait rounded down to whole
/// milliseconds sleeps past its deadline instead of spinning on zero-timeout polls until it (RDKafkaClient); the
/// thread that created the client keeps its own.
@Suite(.timeLimit(.minutes(2))) struct LibraryTimerSlackTests {
    @Test func aClientsThreadsSleepWithAMillisecondOfSlackAndItsCreatorKeepsItsOwn() async throws {
        let (cluster, topic) = try await SharedMockCluster.topic("slack")
        let (slacks, creators): ([Int32: LibraryThread], (Int, Int)) = try await Task.detached {
            let before = Set(Self.libraryThreads().keys)
            let creator = Self.slack(of: Self.currentThread())
            let producer = try KafkaProducer(configuration: SharedMockCluster.configuration(cluster))
            let creatorAfter = Self.slack(of: Self.currentThread())
            // A delivered record means the producer has connected to the broker leading the partition: its broker
            // threads exist by now.
            _ = try await producer.send(KafkaProducerRecord(topic: topic, key: nil, value: Data("x".utf8)))
            let started = Self.libraryThreads().filter { !before.contains($0.key) }
            try await producer.close()
            return (started, (creator, creatorAfter))
        }.value
        #expect(slacks.values.contains { $0.name.hasPrefix("rdk:broker") }, "the producer's broker threads were found: \(slacks)")
        for (tid, thread) in slacks {
            #expect(thread.slack == 1_000_000, "\(thread.name) (\(tid)) sleeps with 1 ms of slack")
        }
        #expect(creators.0 == creators.1, "the creating thread's slack is as it was")
        #expect(creators.0 != 1_000_000)
    }

    struct LibraryThread: Sendable {
        let name: String
        /// Nanoseconds.
        let slack: Int
    }

    /// librdkafka's threads of this process (named `rdk:…`) by thread id.
    static func libraryThreads() -> [Int32: LibraryThread] {
        let tids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var threads: [Int32: LibraryThread] = [:]
        for tid in tids.compactMap(Int32.init) {
            guard let name = try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8),
                  name.hasPrefix("rdk:") else { continue }
            threads[tid] = LibraryThread(name: name.trimmingCharacters(in: .whitespacesAndNewlines), slack: slack(of: tid))
        }
        return threads
    }

    /// The calling thread's id, from /proc/thread-self (a link to `<pid>/task/<tid>`).
    static func currentThread() -> Int32 {
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
        return Int32(target.split(separator: "/").last ?? "") ?? -1
    }

    /// A thread's timer slack: /proc/<tid> answers for a thread as /proc/<pid> does for a process.
    static func slack(of tid: Int32) -> Int {
        let text = (try? String(contentsOfFile: "/proc/\(tid)/timerslack_ns", encoding: .utf8)) ?? ""
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
