import Foundation

/// The GPS part of an EXIF (TIFF) block, erased in place in the buffer that holds the block: the pointer to the
/// GPS IFD leaves IFD0 and the GPS IFD, with every value it owns, is zeroed.
///
/// Nothing here allocates by claim: every count, offset and size the block claims is checked against the block's
/// real length (one APP1 segment, at most 64 KiB) with overflow-safe arithmetic before a byte is read or written, so
/// a claim can never make the work or the memory larger than the block itself (the one scratch area, a coverage
/// count per byte of the block, is sized by the block). Only IFD0 and the one GPS IFD it points to are visited (no
/// IFD chain is followed), so a loop of IFD offsets cannot make the walk run on. A block whose structure is not the
/// plain one — not TIFF at all, out-of-bounds claims, a GPS IFD overlapping IFD0 or the header, a value overlapping
/// a table, more than one GPS pointer — is reported malformed, and the caller zeroes it whole.
struct ExifGPS {
    /// What erasing found.
    enum Outcome: Equatable {
        /// A TIFF block without a GPS IFD: nothing was changed.
        case unchanged
        /// The GPS pointer and IFD were removed.
        case erased
        /// The structure cannot be trusted; nothing was changed and the whole block should be zeroed.
        case malformed
    }

    /// The GPS IFD pointer tag.
    static let pointerTag = 0x8825

    /// The block: the bytes after `Exif\0\0`, starting with the TIFF header.
    private let tiff: UnsafeMutableRawBufferPointer
    private let bigEndian: Bool

    /// Erases the GPS data of the TIFF block in `tiff`, in place.
    static func erase(in tiff: UnsafeMutableRawBufferPointer) -> Outcome {
        guard let block = ExifGPS(tiff) else { return .malformed }
        return block.erase()
    }

    /// Reads the TIFF header; nil when it is not one.
    private init?(_ tiff: UnsafeMutableRawBufferPointer) {
        guard tiff.count >= 8 else { return nil }
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        self.tiff = tiff
        guard value(16, at: 2) == 42 else { return nil }
    }

    /// An IFD's table: where it starts, its entry count and where it ends (after the next-IFD offset).
    private struct Table {
        var start: Int
        var count: Int
        var end: Int

        func entry(_ index: Int) -> Int { start + 2 + index * 12 }
        func overlaps(_ range: Range<Int>) -> Bool { range.overlaps(start..<end) }
    }

    private func erase() -> Outcome {
        guard let ifd0Offset = value(32, at: 4), ifd0Offset >= 8, let ifd0 = table(at: ifd0Offset) else { return .malformed }
        var pointerIndex: Int?
        for index in 0..<ifd0.count where value(16, at: ifd0.entry(index)) == Self.pointerTag {
            guard pointerIndex == nil else { return .malformed }
            pointerIndex = index
        }
        guard let pointerIndex else { return .unchanged }
        guard let gpsOffset = value(32, at: ifd0.entry(pointerIndex) + 8), gpsOffset >= 8, let gps = table(at: gpsOffset),
              !ifd0.overlaps(gps.start..<gps.end)
        else { return .malformed }

        // Every check first, so that a malformed block is left as it was for the caller to zero.
        for index in 0..<gps.count {
            guard let values = outOfLineValues(of: gps.entry(index)) else { return .malformed }
            if let values, values.lowerBound < 8 || ifd0.overlaps(values) || gps.overlaps(values) { return .malformed }
        }
        zeroValues(of: gps)
        zero(gps.start..<gps.end)
        removeEntry(pointerIndex, from: ifd0)
        return .erased
    }

    /// Zeros every value area of `table`'s entries in one sweep over the block: entries may all claim the same
    /// large area, and zeroing each claim on its own would make the work grow with the claims, not the block.
    private func zeroValues(of table: Table) {
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: tiff.count + 1) { coverage in
            coverage.initialize(repeating: 0)
            for index in 0..<table.count {
                guard let values = outOfLineValues(of: table.entry(index)) ?? nil else { continue }
                coverage[values.lowerBound] += 1
                coverage[values.upperBound] -= 1
            }
            var depth: Int32 = 0
            for offset in 0..<tiff.count {
                depth += coverage[offset]
                if depth > 0 { tiff[offset] = 0 }
            }
        }
    }

    /// The table at `offset`, when its count, entries and next-IFD offset all lie inside the block.
    private func table(at offset: Int) -> Table? {
        guard let count = value(16, at: offset), let size = Self.product(count, 12).flatMap({ Self.sum($0, 6) }),
              let end = Self.sum(offset, size), end <= tiff.count
        else { return nil }
        return Table(start: offset, count: count, end: end)
    }

    /// Where the values of the entry at `position` lie when they are stored outside the table: nil when they do
    /// not fit the block, `.some(nil)` when they sit in the entry itself (four bytes or fewer).
    private func outOfLineValues(of position: Int) -> Range<Int>?? {
        guard let type = value(16, at: position + 2), let items = value(32, at: position + 4),
              let size = Self.product(items, Self.typeSize(type))
        else { return nil }
        guard size > 4 else { return .some(nil) }
        guard let start = value(32, at: position + 8), let end = Self.sum(start, size), end <= tiff.count else { return nil }
        return .some(start..<end)
    }

    /// IFD0 without the entry at `index`: the later entries and the next-IFD offset move up 12 bytes, 12 zeros
    /// follow, and the count drops by one. The table keeps its place and length, so nothing else moves.
    private func removeEntry(_ index: Int, from table: Table) {
        let removed = table.entry(index)
        let base = tiff.baseAddress!
        memmove(base + removed, base + removed + 12, table.end - removed - 12)
        zero((table.end - 12)..<table.end)
        store16(table.count - 1, at: table.start)
    }

    private func zero(_ range: Range<Int>) {
        UnsafeMutableRawBufferPointer(rebasing: tiff[range]).initializeMemory(as: UInt8.self, repeating: 0)
    }

    private func store16(_ number: Int, at offset: Int) {
        let high = UInt8(truncatingIfNeeded: number >> 8)
        let low = UInt8(truncatingIfNeeded: number)
        tiff[offset] = bigEndian ? high : low
        tiff[offset + 1] = bigEndian ? low : high
    }

    /// Bytes per item of a TIFF field type (unknown types count as one byte).
    private static func typeSize(_ type: Int) -> Int {
        switch type {
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: 1
        }
    }

    private static func product(_ a: Int, _ b: Int) -> Int? {
        let (result, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? nil : result
    }

    private static func sum(_ a: Int, _ b: Int) -> Int? {
        let (result, overflow) = a.addingReportingOverflow(b)
        return overflow ? nil : result
    }

    /// A 16- or 32-bit unsigned value at `offset` in the block's byte order; nil out of bounds.
    private func value(_ bits: Int, at offset: Int) -> Int? {
        let width = bits / 8
        guard offset >= 0, let end = Self.sum(offset, width), end <= tiff.count else { return nil }
        var number = 0
        for index in 0..<width {
            let byte = Int(tiff[bigEndian ? offset + index : end - 1 - index])
            number = number << 8 | byte
        }
        return number
    }
}
