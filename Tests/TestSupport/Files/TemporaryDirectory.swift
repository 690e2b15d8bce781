import Foundation

/// A directory of its own under the system's temporary directory, for one test's files; removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL
    /// The directory's path.
    public var path: String { url.path }

    /// Creates a directory named `prefix` and a fresh UUID.
    public init(prefix: String = "attache-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String { "\(path)/\(name)" }

    /// Writes `size` deterministic, non-repeating bytes (`TestBytes`) and returns the path.
    public func patternFile(_ name: String, size: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) throws -> String {
        let file = path(name)
        try TestBytes.make(size, seed: seed).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// A sparse file of `size` zero bytes: large without using disk or time.
    public func sparseFile(_ name: String, size: Int64) throws -> String {
        let file = path(name)
        guard FileManager.default.createFile(atPath: file, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
        return file
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
