import Foundation

/// Starts work on a thread of its own, outside Swift's cooperative pool, for C calls that block.
enum DedicatedThread {
    /// Runs `body` on a new thread named `name`; the thread ends when `body` returns.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }
}
