import Foundation

/// Where a JPEG keeps the place it was taken, and how it is removed without touching the image.
///
/// EXIF (APP1 `Exif`) points to a GPS IFD from its first IFD: the pointer entry is removed from that IFD and the
/// GPS IFD with every value it owns is zeroed. An EXIF block that cannot be parsed safely is zeroed whole, and an
/// XMP block (APP1 `http://ns.adobe.com/xap/1.0/`) that mentions GPS is blanked too. Every edit overwrites bytes
/// in place: segment lengths, the file size and the compressed image stay exactly as they were.
///
/// The file is walked segment by segment through one working buffer the size of the largest segment payload
/// (64 KiB): each APP1 segment is read into it, edited there and handed on. Nothing else is allocated, so memory
/// stays the same whatever the metadata claims and however many segments the file has.
enum LocationMetadata {
    /// The largest payload a segment can have (its 16-bit length counts its own two bytes): the working buffer's size.
    static let segmentCapacity = 65533

    /// Removes location metadata from the JPEG open at `descriptor`, one APP1 segment at a time, and hands every
    /// segment it changed to `changed` with the segment payload's offset in the file. The file itself is only read
    /// (with `pread`, so its offset does not move).
    ///
    /// - Parameter changed: receives each edited payload; the bytes are valid only during the call. nil only asks
    ///   whether there is anything to remove, and stops at the first segment that has some.
    /// - Returns: whether any segment changed; false when the file is not a JPEG or carries no location.
    static func erase(in descriptor: Int32, changed: ((UnsafeRawBufferPointer, Int64) throws -> Void)?) throws -> Bool {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: segmentCapacity, alignment: 16)
        defer { buffer.deallocate() }
        guard try read(descriptor, at: 0, into: buffer, count: 2) == 2, buffer[0] == 0xFF, buffer[1] == 0xD8 else { return false }
        var anyChanged = false
        var offset: Int64 = 2
        while try read(descriptor, at: offset, into: buffer, count: 4) == 4, buffer[0] == 0xFF {
            let marker = buffer[1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0xDA || marker == 0xD9 { break }  // image data or end: no metadata after this
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { offset += 2; continue }
            let length = Int(buffer[2]) << 8 | Int(buffer[3])
            guard length >= 2 else { break }
            if marker == 0xE1 {
                // A segment cut short by the end of the file is edited as far as it goes.
                let got = try read(descriptor, at: offset + 4, into: buffer, count: length - 2)
                let payload = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<got])
                if eraseSegment(payload) {
                    anyChanged = true
                    guard let changed else { return true }
                    try changed(UnsafeRawBufferPointer(payload), offset + 4)
                }
            }
            offset += 2 + Int64(length)
        }
        return anyChanged
    }

    private static let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]
    private static let xmpHeader: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    private static let gps: [UInt8] = Array("GPS".utf8)

    /// Removes location from one APP1 payload in place; true when it changed.
    static func eraseSegment(_ payload: UnsafeMutableRawBufferPointer) -> Bool {
        if payload.starts(with: exifHeader) {
            let tiff = UnsafeMutableRawBufferPointer(rebasing: payload[exifHeader.count...])
            switch ExifGPS.erase(in: tiff) {
            case .unchanged: return false
            case .erased: return true
            case .malformed:
                guard tiff.contains(where: { $0 != 0 }) else { return false }
                tiff.initializeMemory(as: UInt8.self, repeating: 0)
                return true
            }
        }
        if payload.starts(with: xmpHeader), contains(gps, in: UnsafeRawBufferPointer(payload)) {
            let text = UnsafeMutableRawBufferPointer(rebasing: payload[xmpHeader.count...])
            guard text.contains(where: { $0 != 0x20 }) else { return false }
            text.initializeMemory(as: UInt8.self, repeating: 0x20)
            return true
        }
        return false
    }

    /// Reads up to `count` bytes at `offset` into the start of `buffer`; fewer only at the end of the file.
    private static func read(_ descriptor: Int32, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, count: Int) throws -> Int {
        var got = 0
        while got < count {
            let result = pread(descriptor, buffer.baseAddress! + got, count - got, off_t(offset + Int64(got)))
            if result < 0 {
                if errno == EINTR { continue }
                throw localFailure("cannot read a staged file")
            }
            if result == 0 { break }
            got += result
        }
        return got
    }

    private static func contains(_ needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
