import Foundation
import UploadEngine

extension StagedFile {
    /// The staged bytes: a copy's file, or what an open source reads.
    func contents() throws -> Data {
        switch bytes {
        case .copy(let path):
            return try Data(contentsOf: URL(fileURLWithPath: path))
        case .source(let source):
            var data = Data(count: Int(source.size))
            var filled = 0
            try data.withUnsafeMutableBytes { buffer in
                while filled < buffer.count {
                    let count = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]), at: Int64(filled))
                    guard count > 0 else { break }
                    filled += count
                }
            }
            return data.prefix(filled)
        }
    }
}
