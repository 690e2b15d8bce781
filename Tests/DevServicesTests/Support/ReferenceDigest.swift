import Foundation
import TestSupport

/// SHA-256 from Debian's `sha256sum`, independent of the code under test.
enum ReferenceDigest {
    static func sha256(of file: URL) async throws -> String {
        let run = try await Subprocess.run("/usr/bin/sha256sum", [file.path])
        guard run.status == 0 else { throw CocoaError(.fileReadUnknown) }
        return String(run.outputText.prefix(64))
    }
}
