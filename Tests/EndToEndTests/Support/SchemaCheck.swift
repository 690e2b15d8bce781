import Foundation
import TestSupport

/// `ops/check-schemas`, run with the project's venv (`ops/install-deps test` puts jsonschema there).
enum SchemaCheck {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The exit status and everything the check printed.
    static func run(_ arguments: [String] = []) async throws -> (status: Int32, output: String) {
        let python = packageRoot.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw EndToEndFailure("\(python) not found: run ops/install-deps test")
        }
        let script = packageRoot.appendingPathComponent("ops/check-schemas").path
        let run = try await Subprocess.run(python, [script] + arguments, mergeError: true)
        return (run.status, run.outputText)
    }
}
