import Foundation
import TestSupport

/// SHA-256 from Debian's `sha256sum`, independent of the code under test.
enum ReferenceDigest {
    static func sha256(of file: URL) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [file.path]
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        process.standardOutput = handle
        let status = try await process.runUntilExit()
        guard status == 0 else { throw CocoaError(.fileReadUnknown) }
        return String(String(decoding: try Data(contentsOf: output), as: UTF8.self).prefix(64))
    }
}
