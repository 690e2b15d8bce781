import Foundation
import TestSupport

/// Small files of known formats, and filler, for staging tests.
enum SampleBytes {
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        + filler(600) + [0xFF, 0xD9]
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + filler(600)
    static let gif: [UInt8] = Array("GIF89a".utf8) + filler(600)
    static let pdf: [UInt8] = Array("%PDF-1.7\n".utf8) + filler(600)
    static let zip: [UInt8] = [0x50, 0x4B, 0x03, 0x04] + filler(600)
    static let mp3: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 0] + filler(600)
    static let text: [UInt8] = Array(String(repeating: "plain words, nothing special. ", count: 30).utf8)

    /// `count` deterministic bytes that match no signature (they start with a lower-case letter).
    static func filler(_ count: Int, seed: UInt64 = 7) -> [UInt8] {
        var bytes = Array(TestBytes.make(count, seed: seed))
        if !bytes.isEmpty { bytes[0] = 0x61 }
        return bytes
    }

    /// An ISO media file header with `major` and `compatible` brands.
    static func isoMedia(_ major: String, _ compatible: [String] = []) -> [UInt8] {
        let size = 16 + 4 * compatible.count
        return [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 2, 0]
            + compatible.flatMap { Array($0.utf8) } + filler(600)
    }
}
