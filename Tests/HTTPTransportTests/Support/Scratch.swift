import Foundation

/// A temporary directory for one test's files, removed by `remove()`.
struct Scratch {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("attache-http-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { "\(path)/\(name)" }

    /// Writes `size` deterministic, non-repeating bytes and returns the path.
    func patternFile(_ name: String, size: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) throws -> String {
        var state = seed
        var bytes = [UInt8](repeating: 0, count: size)
        var index = 0
        while index < size {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var word = state >> 16
            for _ in 0..<min(6, size - index) {
                bytes[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        let path = file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A sparse file of `size` zero bytes: large without using disk or time.
    func sparseFile(_ name: String, size: Int64) throws -> String {
        let path = file(name)
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
        return path
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
