import CLinux
import Foundation
import S3
@testable import Staging
import Testing
import UploadEngine

/// `path` sources the kernel holds in memory are staged on the calling task; anything that would wait for I/O, or
/// is out of the ordinary, is left to the staging queue's path. Needs a kernel that answers lookups from its cache
/// alone (`RESOLVE_CACHED`, Linux 5.12), and no seccomp filter hiding `openat2`.
@Suite(.timeLimit(.minutes(1)), .enabled(if: LookupCache.answers))
struct SourceMemoryTests {
    @Test func aSmallFileInMemoryIsOpenedSniffedAndHashedOnTheTask() async throws {
        let fixture = try await StagingFixture(StagingFixture.Options(signsDigest: true))
        defer { fixture.stop() }
        try fixture.writeSource("inbox/notes.pdf", SampleBytes.pdf)

        let look = try #require(try fixture.stager.lookInMemory("inbox/notes.pdf", sizeLimit: 1 << 20, hashing: true))
        defer { look.source.release() }

        #expect(look.shown?.mimeType == "application/pdf")
        #expect(look.digest == SHA256Hasher.hex(of: Data(SampleBytes.pdf)))
        #expect(look.source.size == Int64(SampleBytes.pdf.count))
        #expect(look.source.digestComplete, "the one read fed the digest: the upload reads nothing more for it")
    }

    /// Overwrites the source's bytes in place, through another descriptor: the staged one sees the new bytes.
    private func overwriteInPlace(_ fixture: StagingFixture, _ relative: String, with bytes: [UInt8]) throws {
        let descriptor = open(fixture.sourceRoot.appendingPathComponent(relative).path, O_WRONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try #require(pwrite(descriptor, bytes, bytes.count, 0) == bytes.count)
    }

    private func readWhole(_ source: OpenSource) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Int(source.size))
        var filled = 0
        while filled < bytes.count {
            let count = try bytes.withUnsafeMutableBytes {
                try source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...]), at: Int64(filled))
            }
            try #require(count > 0)
            filled += count
        }
        return bytes
    }

    @Test func aSmallFileHashedWholeIsUploadedFromTheBytesStagingRead() async throws {
        let fixture = try await StagingFixture(StagingFixture.Options(signsDigest: true))
        defer { fixture.stop() }
        try fixture.writeSource("inbox/notes.pdf", SampleBytes.pdf)
        let look = try #require(try fixture.stager.lookInMemory("inbox/notes.pdf", sizeLimit: 1 << 20, hashing: true))
        defer { look.source.release() }
        let changed = SampleBytes.pdf.map { $0 ^ 0x5A }
        try overwriteInPlace(fixture, "inbox/notes.pdf", with: changed)

        #expect(try readWhole(look.source) == SampleBytes.pdf, "the upload sends the bytes that were hashed, read no file")
        #expect(try readWhole(look.source) == changed, "read to their end, they were let go: a retry reads the file")
    }

    @Test func heldBytesAreLetGoWhenTheSourceIsKeptForAnotherAttemptOrGivenBack() async throws {
        let fixture = try await StagingFixture(StagingFixture.Options(signsDigest: true))
        defer { fixture.stop() }
        try fixture.writeSource("a.pdf", SampleBytes.pdf)
        try fixture.writeSource("b.pdf", SampleBytes.pdf)
        let kept = try #require(try fixture.stager.lookInMemory("a.pdf", sizeLimit: 1 << 20, hashing: true))
        defer { kept.source.release() }
        let givenBack = try #require(try fixture.stager.lookInMemory("b.pdf", sizeLimit: 1 << 20, hashing: true))
        let changed = SampleBytes.pdf.map { $0 ^ 0x5A }
        try overwriteInPlace(fixture, "a.pdf", with: changed)

        _ = kept.source.keep()
        #expect(try readWhole(kept.source) == changed, "an attempt that ended unread leaves the next one to read the file")
        givenBack.source.release()
        #expect(throws: UploadError.self, "a source given back serves no read, held bytes or not") {
            _ = try readWhole(givenBack.source)
        }
    }

    @Test func withoutHashingOnlyTheSniffedBytesAreRead() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        try fixture.writeSource("a.png", SampleBytes.png)

        let look = try #require(try fixture.stager.lookInMemory("a.png", sizeLimit: 1 << 20, hashing: false))
        defer { look.source.release() }

        #expect(look.shown?.mimeType == "image/png")
        #expect(look.digest == nil)
        #expect(!look.source.digestComplete, "\(SampleBytes.png.count) bytes, of which only the first \(ContentSignature.window) were read")
    }

    @Test func aFileWhosePagesLeftTheCacheIsLeftToTheQueueAndStillStaged() async throws {
        let fixture = try await StagingFixture(StagingFixture.Options(signsDigest: true))
        defer { fixture.stop() }
        try fixture.writeSource("cold.pdf", SampleBytes.pdf)
        let path = fixture.sourceRoot.appendingPathComponent("cold.pdf").path
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        let inMemory = attache_file_system_kind_of(descriptor) == 2
        // Written back, then dropped from the page cache: the next read has to go to the disk.
        #expect(fsync(descriptor) == 0)
        #expect(posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED) == 0)
        close(descriptor)

        let look = try fixture.stager.lookInMemory("cold.pdf", sizeLimit: 1 << 20, hashing: true)
        look?.source.release()
        let staged = try await fixture.stage(.path("cold.pdf"))
        defer { fixture.stager.releaseInBackground(staged) }

        if inMemory {
            #expect(look != nil, "tmpfs keeps its pages whatever the advice: read from memory")
        } else {
            #expect(look == nil, "bytes on the disk are read on the staging queue, not on the task")
        }
        #expect(staged.sha256 == SHA256Hasher.hex(of: Data(SampleBytes.pdf)))
        #expect(staged.mimeType == "application/pdf")
    }

    @Test func anythingButASmallRegularFileIsLeftToTheQueuesPath() async throws {
        let fixture = try await StagingFixture(StagingFixture.Options(signsDigest: true))
        defer { fixture.stop() }
        try fixture.writeSource("big.bin", [UInt8](repeating: 7, count: Int(StagingArea.inlineDigestBytes) + 1))
        try FileManager.default.createDirectory(at: fixture.sourceRoot.appendingPathComponent("folder"), withIntermediateDirectories: true)
        #expect(mkfifo(fixture.sourceRoot.appendingPathComponent("pipe").path, 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: fixture.sourceRoot.appendingPathComponent("absolute").path,
                                                   withDestinationPath: fixture.sourceRoot.appendingPathComponent("big.bin").path)
        try Data(SampleBytes.pdf).write(to: fixture.directory.appendingPathComponent("outside.pdf"))
        try FileManager.default.createSymbolicLink(atPath: fixture.sourceRoot.appendingPathComponent("escape.pdf").path,
                                                   withDestinationPath: "../outside.pdf")

        for relative in ["big.bin", "folder", "pipe", "absolute", "missing.pdf", "escape.pdf"] {
            let look = try fixture.stager.lookInMemory(relative, sizeLimit: 1 << 30, hashing: true)
            #expect(look == nil, "\(relative)")
        }
        #expect(await fixture.stagingError(.path("escape.pdf"))?.code == .sourceForbidden, "and the queue's path refuses it")
        #expect(fixture.openDescriptors == 0, "every descriptor opened on the way is closed")
    }

    @Test func theTextChecksAndTheSizeLimitRefuseAsTheQueuesPathDoes() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        try fixture.writeSource("a.pdf", SampleBytes.pdf)

        let tooLarge = #expect(throws: UploadError.self) { try fixture.stager.lookInMemory("a.pdf", sizeLimit: 100, hashing: false) }
        #expect(tooLarge?.code == .fileSizeExceeded)
        let escape = #expect(throws: UploadError.self) { try fixture.stager.lookInMemory("../a.pdf", sizeLimit: 1 << 20, hashing: false) }
        #expect(escape?.code == .sourceForbidden)
        #expect(await fixture.stagingError(.path("a.pdf"), sizeLimit: 100)?.code == .fileSizeExceeded)
        #expect(fixture.openDescriptors == 0)
    }

    /// An open on a network file system can be a round trip however well its name is cached: a root that is not on
    /// a local file system is never looked at on the task.
    @Test func onlyARootOnALocalFileSystemIsLookedAtOnTheTask() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        let procfs = SourceStaging(area: fixture.stager.area, sourceRoot: "/proc/self", client: fixture.client)

        #expect(fixture.stager.looksInMemory, "the fixture's root is in \(fixture.directory.path), on the local disk")
        #expect(!procfs.looksInMemory)
        #expect(try procfs.lookInMemory("status", sizeLimit: 1 << 20, hashing: false) == nil)
    }
}

/// Whether this kernel answers a lookup from its cache alone (`RESOLVE_CACHED`).
enum LookupCache {
    static let answers: Bool = {
        let root = attache_open_cached_directory("/")
        if root >= 0 { close(root) }
        return root >= 0
    }()
}
