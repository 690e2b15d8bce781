import Foundation
import TestSupport

/// A process the tests started: output goes to files, and it never outlives the test run.
///
/// A watchdog (`sh` blocked reading a pipe from the test process) kills the child when that pipe closes: when the
/// test is done with it, or when the test process goes away, even killed.
final class ChildProcess: Sendable {
    let name: String
    let stdoutPath: String
    let stderrPath: String
    private let process: Subprocess
    private let watchdog: Subprocess

    /// With `takesInput`, the child reads what `input` is given; else it reads nothing.
    init(name: String, executable: String, arguments: [String], environment: [String: String] = [:], directory: URL,
         takesInput: Bool = false) throws {
        self.name = name
        stdoutPath = directory.appendingPathComponent("\(name).out").path
        stderrPath = directory.appendingPathComponent("\(name).err").path
        var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("ATTACHE_") }
        merged.merge(environment) { $1 }
        // Its working directory too: defaults relative to it (the staging dir, `./.attache/staging`) stay apart from
        // those of processes other tests run at the same time.
        process = try Subprocess(executable, arguments, environment: merged, directory: directory.path,
                                 input: takesInput ? .pipe : .null, output: .file(stdoutPath), error: .file(stderrPath))
        watchdog = try Subprocess("/bin/sh", ["-c", "read _; kill -9 \"$1\" 2>/dev/null", "watchdog", String(process.pid)],
                                  input: .pipe)
    }

    deinit {
        try? watchdog.input?.close()
    }

    var pid: Int32 { process.pid }

    var isRunning: Bool { process.isRunning }

    /// The writing end of the child's standard input, when it takes input.
    var input: FileHandle? { process.input }

    func signal(_ number: Int32) {
        process.signal(number)
    }

    /// Waits for the exit; nil when it did not exit in time.
    func waitForExit(timeout: Duration) async -> Int32? {
        let process = self.process
        return await withTimeout(timeout) { await process.exitStatus() }
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
