import Foundation

/// `ops/check-schemas`, run with the project's venv (`ops/install-deps test` puts jsonschema there).
enum SchemaCheck {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The exit status and everything the check printed; run and waited for off the cooperative pool.
    static func run(_ arguments: [String] = []) async throws -> (status: Int32, output: String) {
        let python = packageRoot.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw EndToEndFailure("\(python) not found: run ops/install-deps test")
        }
        let script = packageRoot.appendingPathComponent("ops/check-schemas").path
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: python)
                process.arguments = [script] + arguments
                let output = Pipe()
                process.standardOutput = output
                process.standardError = output
                do {
                    try process.run()
                    let printed = output.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    continuation.resume(returning: (process.terminationStatus, String(decoding: printed, as: UTF8.self)))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
