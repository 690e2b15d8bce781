import CLinux
import Foundation
import S3
@testable import Staging
import Testing
import UploadEngine


/// `path` sources: regular files that resolve, symlinks included, inside `sources.root`, opened in place.
@Suite(.timeLimit(.minutes(1))) struct SourcePathTests {
    @Test func aFileUnderTheRootIsOpenedInPlaceWithItsSniffedTypeAndNoStagingCopy() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        try fixture.writeSource("inbox/42/notes.pdf", SampleBytes.pdf)

        let staged = try await fixture.stage(.path("inbox/42/notes.pdf"))

        guard case .source = staged.bytes else { Issue.record("a path source is read in place"); return }
        #expect(staged.path == nil)
        #expect(fixture.stagingFiles.isEmpty, "nothing is copied into staging")
        #expect(staged.size == Int64(SampleBytes.pdf.count))
        #expect(staged.mimeType == "application/pdf")
        #expect(staged.sha256.isEmpty, "hashed by the upload's reads, not before")
        #expect(try staged.contents() == Data(SampleBytes.pdf))
        let sha256 = try await fixture.stager.finishUpload(of: staged, uploaded: true)
        #expect(sha256 == SHA256Hasher.hex(of: Data(SampleBytes.pdf)))
        await fixture.stager.release(staged)
        #expect(fixture.stagingFiles.isEmpty)
    }

    @Test func aSourceReleasedInTheBackgroundIsClosedWithoutAWait() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        try fixture.writeSource("a.pdf", SampleBytes.pdf)
        func stageAndRelease() async throws {
            let staged = try await fixture.stage(.path("a.pdf"))
            #expect(fixture.openDescriptors == 1)
            fixture.stager.releaseInBackground(staged)
        }

        try await stageAndRelease()
        // Everything queued on the staging queue before this barrier has run once it passes.
        StagingArea.queue.sync(flags: .barrier) {}

        #expect(fixture.openDescriptors == 0)
        #expect(FileManager.default.fileExists(atPath: fixture.sourceRoot.appendingPathComponent("a.pdf").path), "the source stays")
    }

    @Test func dotDotEscapesAreRefusedWhetherOrNotTheTargetExists() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        try Data(SampleBytes.pdf).write(to: fixture.directory.appendingPathComponent("outside.pdf"))

        let existing = await fixture.stagingError(.path("../outside.pdf"))
        let missing = await fixture.stagingError(.path("../../nowhere/secret"))
        let nested = await fixture.stagingError(.path("a/../../outside.pdf"))

        #expect(existing?.code == .sourceForbidden)
        #expect(missing?.code == .sourceForbidden)
        #expect(nested?.code == .sourceForbidden)
        #expect(fixture.stagingFiles.isEmpty)
    }

    @Test func symlinksLeadingOutsideTheRootAreRefused() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        let outside = fixture.directory.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data(SampleBytes.pdf).write(to: outside.appendingPathComponent("secret.pdf"))
        try FileManager.default.createSymbolicLink(
            atPath: fixture.sourceRoot.appendingPathComponent("link.pdf").path, withDestinationPath: outside.appendingPathComponent("secret.pdf").path)
        try FileManager.default.createSymbolicLink(
            atPath: fixture.sourceRoot.appendingPathComponent("dir").path, withDestinationPath: outside.path)

        let file = await fixture.stagingError(.path("link.pdf"))
        let directory = await fixture.stagingError(.path("dir/secret.pdf"))

        #expect(file?.code == .sourceForbidden)
        #expect(directory?.code == .sourceForbidden)
        #expect(fixture.stagingFiles.isEmpty)
    }

    @Test func aSymlinkThatStaysInsideTheRootIsFollowed() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        try fixture.writeSource("real/notes.pdf", SampleBytes.pdf)
        try FileManager.default.createSymbolicLink(
            atPath: fixture.sourceRoot.appendingPathComponent("alias.pdf").path, withDestinationPath: "real/notes.pdf")

        let staged = try await fixture.stage(.path("alias.pdf"))

        #expect(try staged.contents() == Data(SampleBytes.pdf))
        await fixture.stager.release(staged)
    }

    @Test func anAbsoluteSymlinkToAFileInsideTheRootIsFollowed() async throws {
        // The kernel's beneath-the-root lookup refuses every absolute symlink; the long way decides this one.
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        try fixture.writeSource("real/notes.pdf", SampleBytes.pdf)
        try FileManager.default.createSymbolicLink(
            atPath: fixture.sourceRoot.appendingPathComponent("absolute.pdf").path,
            withDestinationPath: fixture.sourceRoot.appendingPathComponent("real/notes.pdf").path)

        let staged = try await fixture.stage(.path("absolute.pdf"))

        #expect(try staged.contents() == Data(SampleBytes.pdf))
        await fixture.stager.release(staged)
    }

    @Test func thePathOfTheRootItselfIsRefused() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        try FileManager.default.createDirectory(at: fixture.sourceRoot.appendingPathComponent("sub"), withIntermediateDirectories: true)

        #expect(await fixture.stagingError(.path("."))?.code == .sourceForbidden)
        #expect(await fixture.stagingError(.path("sub/.."))?.code == .sourceForbidden)
    }

    @Test func aPathWithANULByteIsInvalidEvenWhenItsFirstPartNamesAFile() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        try fixture.writeSource("notes.pdf", SampleBytes.pdf)

        #expect(await fixture.stagingError(.path("notes.pdf\u{0}../../etc/passwd"))?.code == .invalidFileObject)
    }

    @Test func theKernelLookupOpensOnlyBeneathItsDirectory() throws {
        let fixture = try TemporaryDirectoryForLookup()
        defer { fixture.remove() }
        let root = open(fixture.root, O_RDONLY | O_DIRECTORY)
        defer { close(root) }

        func opens(_ path: String) -> Int32 {
            let descriptor = attache_open_beneath(root, path, O_RDONLY)
            if descriptor >= 0 { close(descriptor); return 0 }
            return errno
        }

        #expect(opens("inside.txt") == 0)
        #expect(opens("relative-link") == 0, "a relative symlink that stays beneath")
        #expect(opens("../outside.txt") == EXDEV)
        #expect(opens(fixture.root + "/inside.txt") == EXDEV, "an absolute path, even to a file beneath")
        #expect(opens("absolute-link") == EXDEV, "an absolute symlink, even to a file beneath")
        #expect(opens("escaping-link") == EXDEV)
        #expect(opens("missing") == ENOENT)
    }

    @Test func aFIFOIsRefusedWithoutHanging() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        #expect(mkfifo(fixture.sourceRoot.appendingPathComponent("pipe").path, 0o600) == 0)

        let error = await fixture.stagingError(.path("pipe"))

        #expect(error?.code == .sourceForbidden)
        #expect(fixture.stagingFiles.isEmpty)
    }

    @Test func missingFilesDirectoriesAndLoopsAreUnresolvable() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        try FileManager.default.createDirectory(at: fixture.sourceRoot.appendingPathComponent("folder"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: fixture.sourceRoot.appendingPathComponent("loop").path, withDestinationPath: "loop")

        #expect(await fixture.stagingError(.path("missing.pdf"))?.code == .sourceUnresolvable)
        #expect(await fixture.stagingError(.path("folder"))?.code == .sourceUnresolvable)
        #expect(await fixture.stagingError(.path("loop"))?.code == .sourceUnresolvable)
    }

    @Test func pathSourcesAreRefusedWithoutASourceRoot() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        let stager = SourceStaging(area: fixture.stager.area, sourceRoot: nil, client: fixture.client)

        await #expect(throws: UploadError(.sourceForbidden, "path sources are not enabled (sources.root)", retryable: false)) {
            _ = try await stager.stage(FileItem(fileId: "f", name: "n", source: .path("notes.pdf")), batchId: "b", sizeLimit: 100)
        }
    }
}

/// A directory `root` holding `inside.txt` and three symlinks, next to `outside.txt`.
private struct TemporaryDirectoryForLookup {
    let base: String
    var root: String { base + "/root" }

    init() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("beneath-\(UUID().uuidString)").path
        let files = FileManager.default
        try files.createDirectory(atPath: base + "/root", withIntermediateDirectories: true)
        try Data("in".utf8).write(to: URL(fileURLWithPath: base + "/root/inside.txt"))
        try Data("out".utf8).write(to: URL(fileURLWithPath: base + "/outside.txt"))
        try files.createSymbolicLink(atPath: base + "/root/relative-link", withDestinationPath: "inside.txt")
        try files.createSymbolicLink(atPath: base + "/root/absolute-link", withDestinationPath: base + "/root/inside.txt")
        try files.createSymbolicLink(atPath: base + "/root/escaping-link", withDestinationPath: "../outside.txt")
    }

    func remove() { try? FileManager.default.removeItem(atPath: base) }
}
