import Foundation
import Synchronization
import TestSupport

/// Runs a short-lived command and waits for it without blocking a cooperative thread: the exit arrives through
/// `terminationHandler`. Output is read after exit, so commands must write little to stdout/stderr (use files).
enum S3TestProcess {
    struct Outcome {
        var status: Int32
        var stdout: Data
        var stderr: Data
    }

    static func run(_ executable: String, _ arguments: [String]) async throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        let status = try await process.runUntilExit()
        return Outcome(
            status: status, stdout: stdout.fileHandleForReading.readDataToEndOfFile(),
            stderr: stderr.fileHandleForReading.readDataToEndOfFile())
    }

    /// The first executable called `name` on `PATH`.
    static func findOnPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
