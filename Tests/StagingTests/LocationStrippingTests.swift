import Foundation
import S3
import Testing
import UploadEngine


/// `sources.stripLocation`: the GPS block leaves JPEG EXIF losslessly, and size and digest describe what is staged.
@Suite(.timeLimit(.minutes(1))) struct LocationStrippingTests {
    /// A little-endian EXIF block: IFD0 with an orientation and a GPS pointer; a GPS IFD with a version, a
    /// latitude reference and a latitude (48° 51' 24.12", stored outside the table).
    static func exif() -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        func u32(_ value: Int) -> [UInt8] { u16(value & 0xFFFF) + u16(value >> 16) }
        let ifd0 = 8
        let gps = ifd0 + 2 + 2 * 12 + 4
        let latitude = gps + 2 + 3 * 12 + 4
        var tiff: [UInt8] = Array("II".utf8) + u16(42) + u32(ifd0)
        tiff += u16(2) + u16(0x0112) + u16(3) + u32(1) + u16(6) + u16(0) + u16(0x8825) + u16(4) + u32(1) + u32(gps) + u32(0)
        tiff += u16(3) + u16(0x0000) + u16(1) + u32(4) + [2, 2, 0, 0]
        tiff += u16(0x0001) + u16(2) + u32(2) + Array("N".utf8) + [0, 0, 0]
        tiff += u16(0x0002) + u16(5) + u32(3) + u32(latitude) + u32(0)
        tiff += u32(48) + u32(1) + u32(51) + u32(1) + u32(2412) + u32(100)
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// A JPEG: SOI, APP1 with `app1`, a little scan data, EOI.
    static func jpeg(app1: [UInt8]) -> [UInt8] {
        let length = app1.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + app1
            + [0xFF, 0xDA, 0x00, 0x04, 0x01, 0x00] + SampleBytes.filler(2000) + [0xFF, 0xD9]
    }

    private func strippingFixture(cacheMax: Int64? = nil) async throws -> StagingFixture {
        var options = StagingFixture.Options()
        options.stripLocation = true
        options.cacheMax = cacheMax
        return try await StagingFixture(options)
    }

    private func contents(_ staged: StagedFile) throws -> [UInt8] {
        Array(try staged.contents())
    }

    @Test func theGPSBlockAndItsPointerAreRemovedAndEverythingElseIsKept() async throws {
        let fixture = try await strippingFixture()
        defer { fixture.stop() }
        let original = Self.jpeg(app1: Self.exif())

        let staged = try await fixture.stage(.data(Data(original)), mimeType: "image/jpeg")
        let bytes = try contents(staged)

        #expect(bytes.count == original.count)
        #expect(staged.size == Int64(original.count))
        #expect(staged.sha256 == SHA256Hasher.hex(of: Data(bytes)))
        #expect(staged.sha256 != SHA256Hasher.hex(of: Data(original)))
        let app1End = 4 + (Int(original[4]) << 8 + Int(original[5]))
        let tiff = Array(bytes[12..<app1End])
        #expect(tiff[8..<10] == [1, 0], "IFD0 has one entry left")
        #expect(tiff[10..<12] == [0x12, 0x01], "the orientation is kept")
        #expect(!Self.contains([0x25, 0x88], in: tiff), "no GPS pointer tag")
        #expect(!Self.contains(Array("N".utf8) + [0], in: tiff), "the latitude reference is gone")
        #expect(!Self.contains([48, 0, 0, 0, 1, 0, 0, 0, 51], in: tiff), "the latitude is gone")
        #expect(bytes[app1End...] == original[app1End...], "the image data is untouched")
        await fixture.stager.release(staged)
        #expect(fixture.stagingFiles.isEmpty)
    }

    @Test func aFilesOwnSettingWinsOverTheWorkersEitherWay() async throws {
        let original = Self.jpeg(app1: Self.exif())
        let stripping = try await strippingFixture()
        defer { stripping.stop() }
        let kept = try await stripping.stage(.data(Data(original)), mimeType: "image/jpeg", stripLocation: false)
        #expect(try contents(kept) == original, "the job said keep")
        await stripping.stager.release(kept)

        let keeping = try await StagingFixture(StagingFixture.Options())
        defer { keeping.stop() }
        let stripped = try await keeping.stage(.data(Data(original)), mimeType: "image/jpeg", stripLocation: true)
        #expect(try contents(stripped) != original, "the job said strip")
        #expect(!Self.contains([0x25, 0x88], in: try contents(stripped)), "no GPS pointer tag")
        await keeping.stager.release(stripped)
    }

    @Test func aJPEGWithoutLocationIsStagedUnchanged() async throws {
        let fixture = try await strippingFixture()
        defer { fixture.stop() }

        let staged = try await fixture.stage(.data(Data(SampleBytes.jpeg)), mimeType: "image/jpeg")

        #expect(staged.sha256 == SHA256Hasher.hex(of: Data(SampleBytes.jpeg)))
        #expect(fixture.stagingFiles.count == 1)
        await fixture.stager.release(staged)
    }

    @Test func anEXIFBlockThatDoesNotParseIsBlankedWhole() async throws {
        let fixture = try await strippingFixture()
        defer { fixture.stop() }
        var broken = Self.exif()
        broken[6...9] = [0x49, 0x49, 0x2A, 0x00]
        broken[10...13] = [0xFF, 0xFF, 0x00, 0x00]  // IFD0 far outside the block
        let original = Self.jpeg(app1: broken)

        let bytes = try contents(try await fixture.stage(.data(Data(original)), mimeType: "image/jpeg"))

        #expect(bytes.count == original.count)
        #expect(bytes[0..<12] == original[0..<12])
        #expect(bytes[12..<(12 + broken.count - 6)].allSatisfy { $0 == 0 })
    }

    @Test func withoutTheSettingLocationIsKept() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        let original = Self.jpeg(app1: Self.exif())

        let staged = try await fixture.stage(.data(Data(original)), mimeType: "image/jpeg")

        #expect(try contents(staged) == original)
    }

    @Test func aCachedSourceKeepsItsOriginalBytesWhileTheStagedCopyIsStripped() async throws {
        let fixture = try await strippingFixture(cacheMax: 0)
        defer { fixture.stop() }
        let original = Self.jpeg(app1: Self.exif())
        fixture.server.serveObject("/photo.jpg", original, etag: "\"v1\"")

        let first = try await fixture.stage(.url(fixture.url("/photo.jpg")), mimeType: "image/jpeg")
        let second = try await fixture.stage(.url(fixture.url("/photo.jpg")), mimeType: "image/jpeg")

        #expect(fixture.server.fetches("/photo.jpg") == 1)
        #expect(first.sha256 == second.sha256)
        #expect(try contents(first) != original)
        let cached = try #require(fixture.stagingFiles.first { $0.hasSuffix(".cache") })
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: "\(fixture.stagingDirectory)/\(cached)"))) == original)
        await fixture.stager.release(first)
        await fixture.stager.release(second)
        #expect(fixture.stagedFiles.isEmpty)
        #expect(fixture.stager.cache?.usage.pinnedBytes == 0)
    }

    private static func contains(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
        (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
