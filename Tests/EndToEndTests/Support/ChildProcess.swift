import Foundation
import Synchronization

/// A process the tests started: output goes to files, and it never outlives the test run.
///
/// A watchdog (`sh` blocked reading a pipe from the test process) kills the child when that pipe closes: when the
/// test is done with it, or when the test process goes away, even killed.
final class ChildProcess: Sendable {
    let name: String
    let stdoutPath: String
    let stderrPath: String
    private let process: Process
    private let watchdog: Process
    private let lifeline: Pipe

    /// `input`, when given, becomes the child's standard input (else it reads nothing).
    init(name: String, executable: String, arguments: [String], environment: [String: String] = [:], directory: URL,
         input: Pipe? = nil) throws {
        self.name = name
        stdoutPath = directory.appendingPathComponent("\(name).out").path
        stderrPath = directory.appendingPathComponent("\(name).err").path
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        // Its working directory too: defaults relative to it (the staging dir, `./.attache/staging`) stay apart from
        // those of processes other tests run at the same time.
        process.currentDirectoryURL = directory
        var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("ATTACHE_") }
        merged.merge(environment) { $1 }
        process.environment = merged
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardInput = input ?? FileHandle.nullDevice
        try process.run()
        let lifeline = Pipe()
        let watchdog = Process()
        watchdog.executableURL = URL(fileURLWithPath: "/bin/sh")
        watchdog.arguments = ["-c", "read _; kill -9 \"$1\" 2>/dev/null", "watchdog", String(process.processIdentifier)]
        watchdog.standardInput = lifeline
        watchdog.standardOutput = FileHandle.nullDevice
        watchdog.standardError = FileHandle.nullDevice
        try watchdog.run()
        self.process = process
        self.watchdog = watchdog
        self.lifeline = lifeline
    }

    deinit {
        try? lifeline.fileHandleForWriting.close()
    }

    var pid: Int32 { process.processIdentifier }

    var isRunning: Bool { process.isRunning }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits for the exit; nil when it did not exit in time.
    func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    var standardOutput: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var standardError: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Waits for the first line of standard output.
    func firstLine(timeout: Duration) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = standardOutput.split(separator: "\n").first { return String(line) }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw EndToEndFailure("\(name) printed nothing within \(timeout): \(standardError)")
    }
}

struct EndToEndFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
