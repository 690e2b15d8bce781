import Foundation
import Glibc
import Synchronization

/// A child process the tests start with `posix_spawn`, and its exit.
///
/// Not Foundation's `Process`: on Linux its `run()` lists `/proc/self/fd` and copies a whole 256-byte `d_name` out of
/// each directory entry, reading past glibc's buffer (swift-corelibs-foundation#5472). Now and then that read meets an
/// unmapped page and the whole test process dies with SIGSEGV, the more likely the more descriptors are open.
///
/// The child gets descriptors 0–2 as asked and nothing else (every other one is closed in it), no blocked signals and
/// default dispositions: the test runner blocks and ignores some, which a child would otherwise inherit. A thread of
/// its own waits for the exit, so neither waiting nor a termination callback ever holds a cooperative thread.
public final class Subprocess: Sendable {
    /// Where the child's standard input comes from.
    public enum Input: Sendable {
        case null
        case file(String)
        /// A pipe whose writing end is `input`; closing it is the child's end of input.
        case pipe
    }

    /// Where the child's standard output or error goes.
    public enum Output: Sendable {
        case null
        /// Created or truncated.
        case file(String)
        /// A pipe whose reading end is `output` (or `errorOutput`).
        case pipe
        /// Standard error only: wherever standard output goes.
        case standardOutput
    }

    public let pid: pid_t
    /// The writing end of the child's standard input, for `.pipe`.
    public let input: FileHandle?
    /// The reading end of the child's standard output, for `.pipe`.
    public let output: FileHandle?
    /// The reading end of the child's standard error, for `.pipe`.
    public let errorOutput: FileHandle?
    private let exit: ExitWatch

    /// Starts `executable` (a path, not looked up on `PATH`) with `arguments`; `environment` nil inherits ours.
    public init(_ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
                directory: String? = nil, input: Input = .null, output: Output = .null, error: Output = .null) throws {
        var plan = SpawnPlan()
        defer { plan.release() }
        try plan.connect(input, to: 0)
        try plan.connect(output, to: 1)
        try plan.connect(error, to: 2)
        try plan.closeTheRest()
        if let directory { try plan.changeDirectory(to: directory) }
        let variables = environment.map { $0.map { "\($0.key)=\($0.value)" } }
        pid = try Self.spawning.withLock { _ in try plan.spawn(executable, [executable] + arguments, environment: variables) }
        self.input = plan.parentEnds[0]
        self.output = plan.parentEnds[1]
        self.errorOutput = plan.parentEnds[2]
        exit = ExitWatch(pid: pid)
    }

    /// Whether the child has not been seen to exit yet.
    public var isRunning: Bool { exit.status == nil }

    /// The exit code, or the number of the signal that ended it, as Foundation's `terminationStatus`; nil while running.
    public var terminationStatus: Int32? { exit.status }

    public func signal(_ number: Int32) { kill(pid, number) }

    /// Waits for the exit without holding a thread; its `terminationStatus`.
    public func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in exit.whenExited { continuation.resume(returning: $0) } }
    }

    /// Blocks the calling thread until the exit: only from threads that may block (a connection's, a dispatch queue's).
    public func waitBlocking() -> Int32 {
        let done = DispatchSemaphore(value: 0)
        exit.whenExited { _ in done.signal() }
        done.wait()
        return exit.status ?? -1
    }

    /// Calls `handler` once, on the exit (at once when it has happened), from any thread.
    public func whenExited(_ handler: @escaping @Sendable (Int32) -> Void) { exit.whenExited(handler) }

    /// Held while a child is being started.
    private static let spawning = Mutex(())

    /// Runs `body` while no child is being started.
    ///
    /// From the moment a child is cloned until it has started its program, it holds a copy of every descriptor of
    /// the test process: a socket closed meanwhile stays open, and listening, in the child. Code that closes a
    /// listener and expects its port back at once (an in-process mock broker taken down and up) runs here.
    public static func excludingStarts<T>(_ body: () throws -> T) rethrows -> T {
        try spawning.withLock { _ in try body() }
    }
}

/// Why a child process could not be started.
public struct SubprocessFailure: Error, CustomStringConvertible {
    public var description: String
    init(_ step: String, _ code: Int32) { description = "\(step): \(String(cString: strerror(code)))" }
}
