import Foundation
import S3
@testable import Staging
import Testing
import UploadEngine


/// `path` sources are read in place: the opened descriptor is the file's bytes (deleted or renamed, it still
/// reads), a change in place is caught at the end of an attempt, the digest comes from the upload's own reads
/// (or a pass at staging when it is signed), and failed files hold at most `staging.maxOpenSources` open.
@Suite(.timeLimit(.minutes(1))) struct OpenSourceTests {
    private static let bytes = Data(SampleBytes.pdf + SampleBytes.filler(300_000))
    private static let sha256 = SHA256Hasher.hex(of: bytes)

    /// A fixture with `inbox/a.pdf` holding `bytes`.
    private func fixture(_ options: StagingFixture.Options = .init()) async throws -> StagingFixture {
        let fixture = try await StagingFixture(options)
        try fixture.writeSource("inbox/a.pdf", Array(Self.bytes))
        return fixture
    }

    private func source(_ fixture: StagingFixture, _ relative: String = "inbox/a.pdf") -> URL {
        fixture.sourceRoot.appendingPathComponent(relative)
    }

    @Test(arguments: ["deleted", "renamed"])
    func aSourceDeletedOrRenamedAfterItWasOpenedStillReadsItsBytes(change: String) async throws {
        let fixture = try await fixture()
        defer { fixture.stop() }
        let staged = try await fixture.stage(.path("inbox/a.pdf"))

        if change == "deleted" {
            try FileManager.default.removeItem(at: source(fixture))
        } else {
            try FileManager.default.moveItem(at: source(fixture), to: source(fixture, "elsewhere.pdf"))
            try fixture.writeSource("inbox/a.pdf", SampleBytes.jpeg)
        }

        #expect(try staged.contents() == Self.bytes)
        #expect(try await fixture.stager.finishUpload(of: staged, uploaded: true) == Self.sha256)
        await fixture.stager.release(staged)
    }

    @Test func aSourceChangedInPlaceFailsTheEndOfItsAttempt() async throws {
        let fixture = try await fixture()
        defer { fixture.stop() }
        let grown = try await fixture.stage(.path("inbox/a.pdf"))
        let handle = try FileHandle(forWritingTo: source(fixture))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("more".utf8))
        try handle.close()

        let error = await #expect(throws: UploadError.self) {
            try await fixture.stager.finishUpload(of: grown, uploaded: true)
        }
        #expect(error?.code == .sourceFetchFailed)
        #expect(error?.isRetryable == true)
        await fixture.stager.release(grown)

        // The same size, rewritten: only the modification time tells.
        let rewritten = try await fixture.stage(.path("inbox/a.pdf"))
        try Data(SampleBytes.filler(Int(rewritten.size))).write(to: source(fixture), options: [])
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: source(fixture).path)
        await #expect(throws: UploadError.self) {
            try await fixture.stager.finishUpload(of: rewritten, uploaded: false)
        }
        await fixture.stager.release(rewritten)
    }

    @Test func theDigestIsCompletedFromWhatTheUploadDidNotRead() async throws {
        let fixture = try await fixture()
        defer { fixture.stop() }
        let staged = try await fixture.stage(.path("inbox/a.pdf"))
        guard case .source(let source) = staged.bytes else { Issue.record("read in place"); return }
        // Part of it, and out of order: the digest is still that of every byte once, in order.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { buffer.deallocate() }
        _ = try source.read(into: buffer, at: 100_000)
        _ = try source.read(into: buffer, at: 0)
        _ = try source.read(into: buffer, at: 0)

        #expect(try await fixture.stager.finishUpload(of: staged, uploaded: true) == Self.sha256)
        await fixture.stager.release(staged)
    }

    @Test func aSignedDigestIsComputedWhenTheSourceIsStaged() async throws {
        let fixture = try await fixture(.init(signsDigest: true))
        defer { fixture.stop() }

        let staged = try await fixture.stage(.path("inbox/a.pdf"))

        #expect(staged.sha256 == Self.sha256)
        #expect(fixture.stagingFiles.isEmpty)
        #expect(try await fixture.stager.finishUpload(of: staged, uploaded: true) == Self.sha256)
        await fixture.stager.release(staged)
    }

    /// DESIGN §12 *Resume across workers*: the new owner checks a `path` source's size and modification time (and its
    /// change time and inode) against what the multipart upload recorded, and takes the upload's digest when they
    /// match: the recorded digest here is not the file's, so only a staging that did not read the file gives it back.
    /// The file (300,000 bytes) is over the 256 KiB below which staging hashes a source in the same pass as its sniff.
    @Test func aSourceOfTheVersionAMultipartUploadRecordedTakesItsDigestUnread() async throws {
        let fixture = try await fixture(.init(signsDigest: true))
        defer { fixture.stop() }
        let first = try await fixture.stage(.path("inbox/a.pdf"))
        let version = try #require(first.sourceVersion)
        #expect(version.hasPrefix("\(Self.bytes.count)@"))
        await fixture.stager.release(first)
        let recorded = String(repeating: "ab", count: 32)
        let upload = MultipartUpload(key: "k", uploadId: "u", partSize: 5 << 20, sha256: recorded, sourceVersion: version)
        let item = FileItem(fileId: "f1", name: "file", mimeType: nil, source: .path("inbox/a.pdf"))

        let resumed = try await fixture.stager.stage(item, batchId: "batch-1", sizeLimit: 1 << 20, resuming: upload)
        #expect(resumed.sha256 == recorded)
        #expect(resumed.sourceVersion == version)
        #expect(try await fixture.stager.finishUpload(of: resumed, uploaded: true) == recorded)
        await fixture.stager.release(resumed)

        // Touched since: another version, so the file is read and hashed, and the upload will not be resumed.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-60)], ofItemAtPath: source(fixture).path)
        let touched = try await fixture.stager.stage(item, batchId: "batch-1", sizeLimit: 1 << 20, resuming: upload)
        #expect(touched.sha256 == Self.sha256)
        #expect(touched.sourceVersion != version)
        await fixture.stager.release(touched)

        // An upload that recorded no version (an older snapshot) is resumed only by the digest.
        var unversioned = upload
        unversioned.sourceVersion = nil
        let hashed = try await fixture.stager.stage(item, batchId: "batch-1", sizeLimit: 1 << 20, resuming: unversioned)
        #expect(hashed.sha256 == Self.sha256)
        await fixture.stager.release(hashed)

        // Bytes that are not a `path` source are copied and hashed whatever the upload recorded.
        let inline = FileItem(fileId: "f2", name: "file", mimeType: nil, source: .data(Self.bytes))
        let copied = try await fixture.stager.stage(inline, batchId: "batch-1", sizeLimit: 1 << 20, resuming: upload)
        #expect(copied.sha256 == Self.sha256)
        #expect(copied.sourceVersion == nil)
        await fixture.stager.release(copied)
    }

    @Test func failedFilesHoldAtMostMaxOpenSourcesOpen() async throws {
        let fixture = try await fixture(.init(maxOpenSources: 1))
        defer { fixture.stop() }
        let first = try await fixture.stage(.path("inbox/a.pdf"))
        let second = try await fixture.stage(.path("inbox/a.pdf"), fileId: "f2")

        #expect(fixture.stager.keep(first))
        #expect(fixture.stager.keep(first), "asking again takes no second slot")
        #expect(!fixture.stager.keep(second))
        #expect(fixture.stager.sourcesKeptOpen == 1)
        await fixture.stager.release(first)
        #expect(fixture.stager.sourcesKeptOpen == 0)
        #expect(fixture.stager.keep(second))
        await fixture.stager.release(second)
        #expect(fixture.stager.sourcesKeptOpen == 0)
    }

    @Test func aStagerWithNoOpenSourcesAllowedKeepsNone() async throws {
        let fixture = try await fixture(.init(maxOpenSources: 0))
        defer { fixture.stop() }
        let staged = try await fixture.stage(.path("inbox/a.pdf"))

        #expect(!fixture.stager.keep(staged))
        #expect(fixture.stager.keep(try await fixture.stage(.data(Self.bytes))), "copies are not capped")
        await fixture.stager.release(staged)
    }

    @Test func noDescriptorOutlivesItsStagedFiles() async throws {
        let fixture = try await fixture()
        defer { fixture.stop() }
        func stageAndGiveBack() async throws {
            var staged: [StagedFile] = []
            for index in 0..<8 {
                staged.append(try await fixture.stage(.path("inbox/a.pdf"), fileId: "f\(index)"))
            }
            _ = fixture.stager.keep(staged[0])
            #expect(fixture.openDescriptors == 8)
            for (index, file) in staged.enumerated() {
                if index.isMultiple(of: 2) { await fixture.stager.release(file) } else { fixture.stager.releaseInBackground(file) }
            }
            // Refused ones close too.
            _ = await fixture.stagingError(.path("inbox/a.pdf"), mimeType: "image/png")
            _ = await fixture.stagingError(.path("inbox/a.pdf"), sizeLimit: 10)
        }

        try await stageAndGiveBack()
        StagingArea.queue.sync(flags: .barrier) {}

        #expect(fixture.openDescriptors == 0)
        #expect(fixture.stager.sourcesKeptOpen == 0)
    }

    @Test func strippingLocationFromASourceStagesAnEditedCopyAndClosesTheSource() async throws {
        let fixture = try await StagingFixture(.init(stripLocation: true))
        defer { fixture.stop() }
        let original = LocationStrippingTests.jpeg(app1: LocationStrippingTests.exif())
        try fixture.writeSource("photo.jpg", original)
        func stageStripped() async throws -> StagedFile {
            try await fixture.stage(.path("photo.jpg"), mimeType: "image/jpeg")
        }

        let staged = try await stageStripped()

        #expect(staged.path != nil, "the user's file is never edited: the stripped bytes are a copy")
        #expect(try staged.contents() != Data(original))
        #expect(try staged.contents().count == original.count)
        #expect(staged.sha256 == SHA256Hasher.hex(of: try staged.contents()))
        StagingArea.queue.sync(flags: .barrier) {}
        #expect(fixture.openDescriptors == 0)
        #expect(try Data(contentsOf: fixture.sourceRoot.appendingPathComponent("photo.jpg")) == Data(original))
        await fixture.stager.release(staged)
    }
}
