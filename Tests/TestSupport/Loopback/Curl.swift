import Foundation
import Testing

/// Runs Debian's `curl` command-line tool, a client independent of our own code, against the servers under test.
///
/// The process is awaited without holding a cooperative thread. Output goes to files, so a large body can never fill
/// a pipe and wedge the child.
public struct Curl {
    /// What one curl run produced.
    public struct Result: Sendable {
        public var exitCode: Int32
        /// The status code (`%{http_code}`), 0 when there was no answer.
        public var status: Int
        public var body: Data
        /// Response headers, lower-cased names, last value wins.
        public var headers: [String: String]
        public var stderr: String

        public var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    /// Runs `curl` with `arguments` (the URL included) and collects status, headers and body.
    public static func run(_ arguments: [String], stdin: URL? = nil) async throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bodyFile = directory.appendingPathComponent("body")
        let headerFile = directory.appendingPathComponent("headers")
        let statusFile = directory.appendingPathComponent("status")
        let errorFile = directory.appendingPathComponent("stderr")
        for file in [bodyFile, headerFile] {
            _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        }

        let process = try Subprocess(
            "/usr/bin/curl",
            ["--silent", "--show-error", "--noproxy", "*", "-o", bodyFile.path, "-D", headerFile.path,
             "-w", "%{http_code}"] + arguments,
            input: stdin.map { .file($0.path) } ?? .null, output: .file(statusFile.path), error: .file(errorFile.path))
        // curl's own --max-time bounds most calls; this bounds the rest (a test that forgot it).
        let exitCode = await waitFor("curl to exit", timeout: .seconds(120)) { await process.exitStatus() } ?? {
            process.signal(SIGKILL)
            return -1
        }()

        var headers: [String: String] = [:]
        for line in String(decoding: (try? Data(contentsOf: headerFile)) ?? Data(), as: UTF8.self)
            .split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Result(
            exitCode: exitCode,
            status: Int(String(decoding: try Data(contentsOf: statusFile), as: UTF8.self)) ?? 0,
            body: try Data(contentsOf: bodyFile),
            headers: headers,
            stderr: String(decoding: try Data(contentsOf: errorFile), as: UTF8.self))
    }
}
