import Foundation
import Testing

extension Subprocess {
    /// What a command printed, and how it ended.
    public struct Outcome: Sendable {
        public var status: Int32
        public var output: Data
        public var errorOutput: Data

        public var outputText: String { String(decoding: output, as: UTF8.self) }
        public var errorText: String { String(decoding: errorOutput, as: UTF8.self) }
    }

    /// Runs a command to its exit, with `input` as its standard input; output goes through files, so it may be
    /// large, and a daemon it forks cannot hold the reading open. `mergeError` sends standard error to `output`.
    /// A command still running after `timeout` is killed, an issue is recorded and `EventuallyTimeout` thrown.
    public static func run(_ executable: String, _ arguments: [String], input: Data? = nil,
                           environment: [String: String]? = nil, mergeError: Bool = false,
                           timeout: Duration = .seconds(120)) async throws -> Outcome {
        let files = try CapturedOutput(input: input)
        defer { files.remove() }
        let process = try files.start(executable, arguments, environment: environment, mergeError: mergeError)
        let what = "\(executable) \(arguments.joined(separator: " ")) to exit"
        guard let status = await waitFor(what, timeout: timeout, { await process.exitStatus() }) else {
            process.signal(SIGKILL)
            throw EventuallyTimeout(what: what)
        }
        return try files.outcome(status: status)
    }

    /// `run`, blocking the calling thread: only from threads that may block.
    public static func runBlocking(_ executable: String, _ arguments: [String], input: Data? = nil,
                                   mergeError: Bool = false) throws -> Outcome {
        let files = try CapturedOutput(input: input)
        defer { files.remove() }
        let process = try files.start(executable, arguments, environment: nil, mergeError: mergeError)
        return try files.outcome(status: process.waitBlocking())
    }

    /// The first executable called `name` on `PATH`.
    public static func findOnPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// A temporary directory holding one run's input and output files.
private struct CapturedOutput {
    let directory: String

    init(input: Data?) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if let input { try input.write(to: URL(fileURLWithPath: "\(directory)/in")) }
    }

    func start(_ executable: String, _ arguments: [String], environment: [String: String]?,
               mergeError: Bool) throws -> Subprocess {
        let hasInput = FileManager.default.fileExists(atPath: "\(directory)/in")
        return try Subprocess(executable, arguments, environment: environment,
                              input: hasInput ? .file("\(directory)/in") : .null, output: .file("\(directory)/out"),
                              error: mergeError ? .standardOutput : .file("\(directory)/err"))
    }

    func outcome(status: Int32) throws -> Subprocess.Outcome {
        let error = (try? Data(contentsOf: URL(fileURLWithPath: "\(directory)/err"))) ?? Data()
        return Subprocess.Outcome(status: status, output: try Data(contentsOf: URL(fileURLWithPath: "\(directory)/out")),
                                  errorOutput: error)
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
