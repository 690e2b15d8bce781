/// The GPS part of an EXIF (TIFF) block: the pointer to the GPS IFD in IFD0, and what that IFD owns.
///
/// Every offset is bounds-checked; a block that does not parse gives nil and the caller zeroes it whole.
struct ExifGPS {
    private let tiff: [UInt8]
    private let bigEndian: Bool

    /// The GPS IFD pointer tag.
    static let pointerTag: UInt16 = 0x8825

    /// Reads the TIFF header; nil when it is not one.
    init?(_ tiff: [UInt8]) {
        guard tiff.count >= 8 else { return nil }
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        self.tiff = tiff
        guard value(16, at: 2) == 42 else { return nil }
    }

    /// Edits (offsets into the TIFF block) removing the GPS pointer from IFD0 and zeroing the GPS IFD and its
    /// values; empty when there is no GPS IFD; nil when the structure is broken.
    func erasure() -> [(offset: Int, bytes: [UInt8])]? {
        guard let ifd0 = value(32, at: 4).map(Int.init), let count = value(16, at: ifd0).map(Int.init),
              ifd0 + 2 + count * 12 + 4 <= tiff.count
        else { return nil }
        let entries = (0..<count).map { ifd0 + 2 + $0 * 12 }
        guard let index = entries.firstIndex(where: { value(16, at: $0) == UInt64(Self.pointerTag) }) else { return [] }
        guard let gps = value(32, at: entries[index] + 8).map(Int.init), let gpsErasure = zeroedIFD(at: gps) else { return nil }

        // IFD0 without the pointer: the later entries and the next-IFD offset move up 12 bytes, 12 zeros follow.
        let tableEnd = ifd0 + 2 + count * 12 + 4
        var table = Array(tiff[(ifd0 + 2)..<tableEnd])
        table.removeSubrange((index * 12)..<(index * 12 + 12))
        table += [UInt8](repeating: 0, count: 12)
        let newCount = UInt16(count - 1)
        let countBytes: [UInt8] = bigEndian ? [UInt8(newCount >> 8), UInt8(newCount & 0xFF)] : [UInt8(newCount & 0xFF), UInt8(newCount >> 8)]
        return gpsErasure + [(ifd0, countBytes + table)]
    }

    /// Zeros for an IFD's table and for every value stored outside it; nil when anything lies out of bounds.
    private func zeroedIFD(at offset: Int) -> [(offset: Int, bytes: [UInt8])]? {
        guard let count = value(16, at: offset).map(Int.init), offset + 2 + count * 12 + 4 <= tiff.count else { return nil }
        var edits: [(offset: Int, bytes: [UInt8])] = [(offset, [UInt8](repeating: 0, count: 2 + count * 12 + 4))]
        for entry in 0..<count {
            let position = offset + 2 + entry * 12
            guard let type = value(16, at: position + 2), let items = value(32, at: position + 4) else { return nil }
            let size = Int(items) * Self.typeSize(type)
            guard size > 4 else { continue }
            guard let valueOffset = value(32, at: position + 8).map(Int.init), valueOffset + size <= tiff.count else {
                return nil
            }
            edits.append((valueOffset, [UInt8](repeating: 0, count: size)))
        }
        return edits
    }

    /// Bytes per item of a TIFF field type (unknown types count as one byte).
    private static func typeSize(_ type: UInt64) -> Int {
        switch type {
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: 1
        }
    }

    /// A 16- or 32-bit unsigned value at `offset` in the block's byte order; nil out of bounds.
    private func value(_ bits: Int, at offset: Int) -> UInt64? {
        let width = bits / 8
        guard offset >= 0, offset + width <= tiff.count else { return nil }
        let bytes = tiff[offset..<offset + width]
        let ordered = bigEndian ? Array(bytes) : bytes.reversed()
        return ordered.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
