import Foundation
import HTTPTransport
import Testing
import TestSupport

/// A client's transfer threads carry their name into the system, where `top -H`, `ps -L` and perf read it.
@Suite struct CurlLoopThreadTests {
    @Test func theTransferLoopsRunOnThreadsNamedAttacheCurl() async throws {
        let client = try HTTPClient()
        let named = { () -> Int in
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return tasks.filter { (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)) == "attache-curl\n" }.count
        }
        // The loop names its thread as the thread starts, which may be a moment after the client is made.
        #expect(await eventually { named() > 0 })
        withExtendedLifetime(client) {}
    }
}
