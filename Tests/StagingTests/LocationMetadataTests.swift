import Foundation
import S3
@testable import Staging
import Testing


/// Location stripping on hostile EXIF: every claim is checked against the segment, nothing is allocated by claim,
/// and a structure that cannot be trusted is blanked whole — never a crash, never a hang.
@Suite(.timeLimit(.minutes(1))) struct LocationMetadataTests {
    /// One crafted TIFF block and what erasing it must find.
    struct Crafted: Sendable, CustomTestStringConvertible {
        var name: String
        var tiff: [UInt8]
        var outcome: ExifGPS.Outcome
        var testDescription: String { name }
    }

    static func u16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
    static func u32(_ value: Int) -> [UInt8] { u16(value & 0xFFFF) + u16((value >> 16) & 0xFFFF) }
    static func entry(tag: Int, type: Int, count: Int, value: Int) -> [UInt8] { u16(tag) + u16(type) + u32(count) + u32(value) }

    /// A little-endian TIFF block: IFD0 at 8 with an orientation and a GPS pointer to `gps`, then `rest`
    /// (whatever the case puts there, starting at offset 38).
    static func tiff(gps: Int, rest: [UInt8], ifd0Entries: [[UInt8]]? = nil) -> [UInt8] {
        let entries = ifd0Entries ?? [entry(tag: 0x0112, type: 3, count: 1, value: 6), entry(tag: 0x8825, type: 4, count: 1, value: gps)]
        return Array("II".utf8) + u16(42) + u32(8) + u16(entries.count) + entries.flatMap { $0 } + u32(0) + rest
    }

    /// Where the table after a two-entry IFD0 starts.
    static let afterIFD0 = 8 + 2 + 2 * 12 + 4

    /// A GPS IFD at `afterIFD0` with `entries`, followed by `tail`.
    static func gpsIFD(_ entries: [[UInt8]], tail: [UInt8] = []) -> [UInt8] {
        u16(entries.count) + entries.flatMap { $0 } + u32(0) + tail
    }

    static let cases: [Crafted] = {
        let gps = afterIFD0
        let latitude = gps + 2 + 12 + 4
        let plain = gpsIFD([entry(tag: 2, type: 5, count: 3, value: latitude)], tail: [UInt8](repeating: 7, count: 24))
        return [
            Crafted(name: "a plain GPS IFD is erased", tiff: tiff(gps: gps, rest: plain), outcome: .erased),
            Crafted(name: "a value count of 2^32-1 rationals", tiff: tiff(gps: gps, rest: gpsIFD(
                [entry(tag: 2, type: 5, count: 0xFFFF_FFFF, value: latitude)], tail: [UInt8](repeating: 7, count: 24))),
                outcome: .malformed),
            Crafted(name: "a value offset past the end", tiff: tiff(gps: gps, rest: gpsIFD(
                [entry(tag: 2, type: 5, count: 3, value: 0xFFFF_FF00)])), outcome: .malformed),
            Crafted(name: "a count and offset whose sum overflows 32 bits", tiff: tiff(gps: gps, rest: gpsIFD(
                [entry(tag: 2, type: 12, count: 0xFFFF_FFFF, value: 0xFFFF_FFFF)])), outcome: .malformed),
            Crafted(name: "a GPS IFD claiming 65535 entries", tiff: tiff(gps: gps, rest: u16(0xFFFF) + [UInt8](repeating: 1, count: 40)),
                    outcome: .malformed),
            Crafted(name: "an IFD0 claiming 65535 entries", tiff: Array("II".utf8) + u16(42) + u32(8) + u16(0xFFFF)
                + entry(tag: 0x8825, type: 4, count: 1, value: 40) + [UInt8](repeating: 0, count: 40), outcome: .malformed),
            Crafted(name: "a GPS pointer back to IFD0 (a loop)", tiff: tiff(gps: 8, rest: plain), outcome: .malformed),
            Crafted(name: "a GPS pointer into IFD0's table", tiff: tiff(gps: 20, rest: plain), outcome: .malformed),
            Crafted(name: "a GPS pointer past the end", tiff: tiff(gps: 0x7FFF_FFFF, rest: plain), outcome: .malformed),
            Crafted(name: "a GPS pointer to the header", tiff: tiff(gps: 0, rest: plain), outcome: .malformed),
            Crafted(name: "an IFD0 inside the header", tiff: Array("II".utf8) + u16(42) + u32(2) + [UInt8](repeating: 0, count: 40),
                    outcome: .malformed),
            Crafted(name: "a GPS value overlapping its own table", tiff: tiff(gps: gps, rest: gpsIFD(
                [entry(tag: 2, type: 5, count: 3, value: gps)], tail: [UInt8](repeating: 7, count: 24))), outcome: .malformed),
            Crafted(name: "a GPS value overlapping IFD0", tiff: tiff(gps: gps, rest: gpsIFD(
                [entry(tag: 2, type: 5, count: 3, value: 8)], tail: [UInt8](repeating: 7, count: 24))), outcome: .malformed),
            Crafted(name: "two GPS pointers", tiff: tiff(gps: gps, rest: plain, ifd0Entries: [
                entry(tag: 0x8825, type: 4, count: 1, value: gps), entry(tag: 0x8825, type: 4, count: 1, value: gps)]),
                outcome: .malformed),
            Crafted(name: "no GPS pointer", tiff: tiff(gps: gps, rest: plain, ifd0Entries: [entry(tag: 0x0112, type: 3, count: 1, value: 6)]),
                    outcome: .unchanged),
            Crafted(name: "a header cut short", tiff: Array("II".utf8) + u16(42), outcome: .malformed),
            Crafted(name: "not TIFF at all", tiff: Array("not a tiff block".utf8), outcome: .malformed),
        ]
    }()

    @Test(arguments: cases)
    func aCraftedBlockIsErasedOrReportedMalformedWithoutTouchingAnythingOutsideIt(_ crafted: Crafted) {
        let guardBytes = 64
        var memory = [UInt8](repeating: 0xA5, count: guardBytes) + crafted.tiff + [UInt8](repeating: 0xA5, count: guardBytes)
        let outcome = memory.withUnsafeMutableBytes { all in
            ExifGPS.erase(in: UnsafeMutableRawBufferPointer(rebasing: all[guardBytes..<(guardBytes + crafted.tiff.count)]))
        }

        #expect(outcome == crafted.outcome)
        #expect(memory.prefix(guardBytes).allSatisfy { $0 == 0xA5 } && memory.suffix(guardBytes).allSatisfy { $0 == 0xA5 })
        let block = Array(memory[guardBytes..<(guardBytes + crafted.tiff.count)])
        switch outcome {
        case .unchanged, .malformed: #expect(block == crafted.tiff, "left for the caller to zero")
        case .erased:
            #expect(block[8..<10] == [1, 0], "IFD0 has one entry left")
            #expect(block[10..<12] == [0x12, 0x01], "the orientation is kept")
            #expect(block[Self.afterIFD0...].allSatisfy { $0 == 0 }, "the GPS IFD and its values are zeroed")
        }
    }

    @Test(arguments: cases)
    func aCraftedBlockInAJPEGStagesWithItsLocationGone(_ crafted: Crafted) async throws {
        var options = StagingFixture.Options()
        options.stripLocation = true
        let fixture = try await StagingFixture(options)
        defer { fixture.stop() }
        let app1 = Array("Exif".utf8) + [0, 0] + crafted.tiff
        let original = LocationStrippingTests.jpeg(app1: app1)

        let staged = try await fixture.stage(.data(Data(original)), mimeType: "image/jpeg")
        let bytes = Array(try staged.contents())

        #expect(bytes.count == original.count)
        #expect(staged.sha256 == SHA256Hasher.hex(of: Data(bytes)))
        let block = bytes[12..<(12 + crafted.tiff.count)]
        #expect(bytes[(12 + crafted.tiff.count)...] == original[(12 + crafted.tiff.count)...], "the image is untouched")
        switch crafted.outcome {
        case .malformed: #expect(block.allSatisfy { $0 == 0 }, "blanked whole")
        case .erased: #expect(Array(block)[Self.afterIFD0...].allSatisfy { $0 == 0 }, "the GPS IFD and its values are zeroed")
        case .unchanged: #expect(Array(block) == crafted.tiff)
        }
        await fixture.stager.release(staged)
    }

    /// A TIFF block filling one APP1 segment: a GPS IFD of 2,000 entries, each claiming the same 40 KiB value
    /// area after the table. Every claim is in bounds; together they claim 80 MB per segment.
    static func claimingSegment() -> [UInt8] {
        let gps = afterIFD0
        let entries = 2000
        let values = gps + 2 + entries * 12 + 4
        let valueSize = 40 * 1024
        let table = (0..<entries).map { entry(tag: 2 + $0 % 30, type: 1, count: valueSize, value: values) }
        let block = Array("Exif".utf8) + [0, 0] + tiff(gps: gps, rest: gpsIFD(table, tail: [UInt8](repeating: 7, count: valueSize)))
        precondition(block.count <= LocationMetadata.segmentCapacity)
        return block
    }

    @Test func memoryStaysFlatWhateverTheMetadataClaims() async throws {
        var options = StagingFixture.Options()
        options.stripLocation = true
        let fixture = try await StagingFixture(options)
        defer { fixture.stop() }
        // Twelve such segments (under 1 MiB inline) claim about 1 GB of values between them.
        let segment = Self.claimingSegment()
        let length = segment.count + 2
        let app1 = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + segment
        let original = [0xFF, 0xD8] + Array((0..<12).map { _ in app1 }.joined())
            + [0xFF, 0xDA, 0x00, 0x04, 0x01, 0x00] + SampleBytes.filler(2000) + [0xFF, 0xD9]
        #expect(original.count < 1 << 20)
        let before = try Self.peakResidentBytes()

        let staged = try await fixture.stage(.data(Data(original)), mimeType: "image/jpeg")

        let grown = try Self.peakResidentBytes() - before
        // The peak is the whole process's, and other suites run alongside (some build events of several MB), so
        // the bound leaves room for them: stripping by claim grew it by about 940 MiB.
        #expect(grown < 400 << 20, "peak resident memory grew by \(grown >> 20) MiB")
        let bytes = Array(try staged.contents())
        #expect(bytes.count == original.count)
        let metadataEnd = 2 + 12 * app1.count
        let valuesLeft = bytes[..<metadataEnd].contains(7)
        #expect(!valuesLeft, "every claimed value area is zeroed")
        let imageKept = bytes[metadataEnd...] == original[metadataEnd...]
        #expect(imageKept)
        await fixture.stager.release(staged)
    }

    /// The process's peak resident set (`VmHWM`), in bytes.
    static func peakResidentBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try #require(Int(line.dropFirst("VmHWM:".count).trimmingCharacters(in: .whitespaces).dropLast(3)
            .trimmingCharacters(in: .whitespaces)))
        return kilobytes * 1024
    }
}
