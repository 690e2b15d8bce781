import CLinux
import Foundation

/// Starts work on a thread of its own, outside Swift's cooperative pool, for C calls that block.
enum DedicatedThread {
    /// Runs `body` on a new thread named `name`; the thread ends when `body` returns.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            // Named from inside: Foundation does not pass a name set before `start` on to the system thread, and
            // `top -H`, `ps -L` and `perf` show what the system has.
            _ = attache_name_this_thread(name)
            body()
        }
        thread.name = name
        thread.start()
    }
}

extension DedicatedThread {
    /// Runs a blocking call on a new thread and suspends the calling task until it returns.
    static func run<T: Sendable>(name: String, _ body: @escaping @Sendable () -> Result<T, KafkaError>) async throws -> T {
        let promise = CompletionPromise<T>()
        start(name: name) { promise.fulfill(body()) }
        return try await promise.value()
    }
}
