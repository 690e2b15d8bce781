import Foundation

/// Where a JPEG keeps the place it was taken, and the byte edits that remove it without touching the image.
///
/// EXIF (APP1 `Exif`) points to a GPS IFD from its first IFD: the pointer entry is removed from that IFD and the
/// GPS IFD with every value it owns is zeroed. An EXIF block that cannot be parsed safely is zeroed whole, and an
/// XMP block (APP1 `http://ns.adobe.com/xap/1.0/`) that mentions GPS is zeroed too. Every edit overwrites bytes
/// in place: segment lengths, the file size and the compressed image stay exactly as they were.
enum LocationMetadata {
    /// Bytes to write at an offset of the file.
    struct Edit: Sendable, Hashable {
        /// Where the bytes go, from the start of the file.
        var offset: Int64
        /// What is written there (as many bytes as were there: nothing moves).
        var bytes: [UInt8]
    }

    /// The edits that remove location metadata from the JPEG open at `descriptor`; empty when it is not a JPEG
    /// or carries none.
    static func edits(in descriptor: Int32) -> [Edit] {
        guard read(descriptor, at: 0, count: 2) == [0xFF, 0xD8] else { return [] }
        var edits: [Edit] = []
        var offset: Int64 = 2
        while let head = read(descriptor, at: offset, count: 4), head.count == 4, head[0] == 0xFF {
            let marker = head[1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0xDA || marker == 0xD9 { break }  // image data or end: no metadata after this
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { offset += 2; continue }
            let length = Int(head[2]) << 8 | Int(head[3])
            guard length >= 2 else { break }
            if marker == 0xE1, let payload = read(descriptor, at: offset + 4, count: length - 2), payload.count == length - 2 {
                edits += segmentEdits(payload, at: offset + 4)
            }
            offset += 2 + Int64(length)
        }
        return edits
    }

    private static let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]
    private static let xmpHeader: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]

    private static func segmentEdits(_ payload: [UInt8], at offset: Int64) -> [Edit] {
        if payload.starts(with: exifHeader) {
            let tiff = Array(payload[exifHeader.count...])
            let base = offset + Int64(exifHeader.count)
            guard let edits = ExifGPS(tiff)?.erasure() else {
                return [Edit(offset: base, bytes: [UInt8](repeating: 0, count: tiff.count))]
            }
            return edits.map { Edit(offset: base + Int64($0.offset), bytes: $0.bytes) }
        }
        if payload.starts(with: xmpHeader), contains(Array("GPS".utf8), in: payload) {
            let start = xmpHeader.count
            return [Edit(offset: offset + Int64(start), bytes: [UInt8](repeating: 0x20, count: payload.count - start))]
        }
        return []
    }

    private static func read(_ descriptor: Int32, at offset: Int64, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        guard got >= 0 else { return nil }
        return Array(bytes.prefix(got))
    }

    private static func contains(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
