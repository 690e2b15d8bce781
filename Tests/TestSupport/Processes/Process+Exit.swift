import Foundation

extension Process {
    /// Starts the process and waits for it to exit, awaited through its termination handler so no thread blocks on it;
    /// its exit status.
    ///
    /// Output should go to files, or be little: a pipe nobody reads while the child runs can fill and wedge it.
    public func runUntilExit() async throws -> Int32 {
        try await withCheckedThrowingContinuation { continuation in
            terminationHandler = { finished in continuation.resume(returning: finished.terminationStatus) }
            do {
                try run()
            } catch {
                terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
    }
}
