import Foundation

/// A file of test bytes in the temporary directory, removed with `remove()`.
public struct TemporaryFile: Sendable {
    public let url: URL
    public let bytes: [UInt8]

    /// Writes `count` deterministic pseudo-random bytes (seeded, so failures reproduce).
    public init(count: Int, seed: UInt64 = 0x5eed) throws {
        try self.init(bytes: Array(TestBytes.make(count, seed: seed)))
    }

    /// Writes `bytes`.
    public init(bytes: [UInt8]) throws {
        self.bytes = bytes
        url = FileManager.default.temporaryDirectory.appendingPathComponent("devsvc-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
    }

    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
