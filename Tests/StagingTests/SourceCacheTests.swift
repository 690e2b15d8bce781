import Foundation
import S3
@testable import Staging
import Testing


/// The source cache: found by the URL without query and fragment, reused only after the origin confirms an entry
/// for the job's own URL, LRU within `staging.cacheMax`, pinned while a batch holds the bytes, and reconciled
/// against its index on start.
@Suite(.timeLimit(.minutes(1))) struct SourceCacheTests {
    private func cachedFixture(max: Int64 = 0, directory: URL? = nil) async throws -> StagingFixture {
        var options = StagingFixture.Options()
        options.cacheMax = max
        options.directory = directory
        return try await StagingFixture(options)
    }

    @Test func aSecondStagingOfTheSameObjectIsConfirmedForItsOwnURLThenLinkedFromTheCache() async throws {
        let fixture = try await cachedFixture()
        defer { fixture.stop() }
        fixture.server.serveObject("/photo.jpg", SampleBytes.jpeg, etag: "\"v1\"")

        let first = try await fixture.stage(.url(fixture.url("/photo.jpg?sig=1")), mimeType: "image/jpeg")
        let second = try await fixture.stage(.url(fixture.url("/photo.jpg?sig=2#top")), mimeType: "image/jpeg")

        #expect(fixture.server.fetches("/photo.jpg") == 1)
        let revalidation = try #require(fixture.server.requests.last)
        #expect(revalidation.head.header("If-None-Match") == "\"v1\"")
        #expect(revalidation.head.queryValue("sig") == "2", "confirmed for the second job's own URL")
        #expect(second.sha256 == first.sha256)
        #expect(second.path != first.path)
        #expect(try second.contents() == Data(SampleBytes.jpeg))
        #expect(second.mimeType == "image/jpeg")
        await fixture.stager.release(first)
        await fixture.stager.release(second)
        #expect(fixture.stagedFiles.isEmpty)
        #expect(fixture.stager.cache?.usage.entries == 1)
    }

    @Test func aCachedSourceIsCheckedAgainstEachFilesDeclarationAndLimit() async throws {
        let fixture = try await cachedFixture()
        defer { fixture.stop() }
        fixture.server.serveObject("/doc", SampleBytes.pdf, etag: "\"pdf\"")
        await fixture.stager.release(try await fixture.stage(.url(fixture.url("/doc"))))

        let contradicted = await fixture.stagingError(.url(fixture.url("/doc")), mimeType: "image/png")
        let tooLarge = await fixture.stagingError(.url(fixture.url("/doc")), sizeLimit: 10)

        #expect(contradicted?.code == .invalidFileObject)
        #expect(tooLarge?.code == .fileSizeExceeded)
        #expect(fixture.server.fetches("/doc") == 1)
        #expect(fixture.stagedFiles.isEmpty)
        #expect(fixture.stager.cache?.usage.pinnedBytes == 0)
    }

    @Test func theLeastRecentlyUsedUnpinnedEntryIsEvictedFirst() async throws {
        let size = SampleBytes.filler(1000).count
        let fixture = try await cachedFixture(max: Int64(2 * size + 10))
        defer { fixture.stop() }
        for name in ["a", "b", "c", "d"] {
            fixture.server.serveObject("/\(name)", SampleBytes.filler(1000, seed: UInt64(name.unicodeScalars.first!.value)), etag: "\"\(name)\"")
        }
        let cache = try #require(fixture.stager.cache)

        let pinned = try await fixture.stage(.url(fixture.url("/a")))
        await fixture.stager.release(try await fixture.stage(.url(fixture.url("/b"))))
        await fixture.stager.release(try await fixture.stage(.url(fixture.url("/c"))))
        await fixture.stager.release(try await fixture.stage(.url(fixture.url("/b"))))  // b is now more recent than c
        await fixture.stager.release(try await fixture.stage(.url(fixture.url("/d"))))

        #expect(cache.usage.entries == 3)
        #expect(cache.usage.countedBytes == Int64(2 * size))
        #expect(cache.usage.pinnedBytes == Int64(size))
        await fixture.stager.release(try await fixture.stage(.url(fixture.url("/b"))))
        await fixture.stager.release(try await fixture.stage(.url(fixture.url("/d"))))
        await fixture.stager.release(try await fixture.stage(.url(fixture.url("/c"))))
        #expect(fixture.server.fetches("/b") == 1)
        #expect(fixture.server.fetches("/d") == 1)
        #expect(fixture.server.fetches("/c") == 2, "c was evicted")
        #expect(fixture.server.fetches("/a") == 1)
        #expect(try pinned.contents().count == size)
        await fixture.stager.release(pinned)
    }

    @Test func pinnedBytesAreNeverEvictedEvenOverTheBudget() async throws {
        let fixture = try await cachedFixture(max: 100)
        defer { fixture.stop() }
        fixture.server.serveObject("/big", SampleBytes.filler(1000), etag: "\"big\"")
        let cache = try #require(fixture.stager.cache)

        let held = try await fixture.stage(.url(fixture.url("/big")))
        let again = try await fixture.stage(.url(fixture.url("/big")))

        #expect(fixture.server.fetches("/big") == 1)
        #expect(cache.usage.pinnedBytes == 1000)
        #expect(cache.usage.countedBytes == 0)
        await fixture.stager.release(held)
        #expect(cache.usage.entries == 1, "still pinned by the second staging")
        await fixture.stager.release(again)
        #expect(cache.usage.entries == 0, "over the budget once unpinned")
        #expect(fixture.stagingFiles == [SourceCache.indexName])
    }

    @Test func aRestartKeepsIndexedEntriesAndRemovesOrphansButNothingElse() async throws {
        let first = try await cachedFixture()
        first.server.serveObject("/photo.jpg", SampleBytes.jpeg, etag: "\"v1\"")
        await first.stager.release(try await first.stage(.url(first.url("/photo.jpg"))))
        _ = try await first.stage(.url(first.url("/photo.jpg")))  // a batch still holding it when the worker stops
        // The origin outlives the worker: only the worker restarts (its server is stopped at the end).
        defer { first.server.stop() }
        let staging = first.stagingDirectory
        let orphanCache = "\(UUID().uuidString.lowercased()).cache"
        for name in ["\(UUID().uuidString.lowercased()).part", orphanCache, SourceCache.indexName + ".tmp"] {
            #expect(FileManager.default.createFile(atPath: "\(staging)/\(name)", contents: Data("left over".utf8)))
        }
        #expect(FileManager.default.createFile(atPath: "\(staging)/notes.txt", contents: Data("not ours".utf8)))
        let cacheFiles = try FileManager.default.contentsOfDirectory(atPath: staging).filter { $0.hasSuffix(".cache") && $0 != orphanCache }

        let second = try await cachedFixture(directory: first.directory)
        defer { second.stop() }
        // The origin would now send other bytes, but confirms the validator: what is staged is the cached copy.
        first.server.serveObject("/photo.jpg", Array("changed".utf8), etag: "\"v1\"")
        let before = first.server.requests.count

        #expect(second.stagingFiles == (cacheFiles + ["notes.txt", SourceCache.indexName]).sorted())
        let staged = try await second.stage(.url(first.url("/photo.jpg")))
        #expect(staged.sha256 == SHA256Hasher.hex(of: Data(SampleBytes.jpeg)))
        let after = Array(first.server.requests.dropFirst(before))
        #expect(after.count == 1)
        #expect(after.allSatisfy { $0.isConditional }, "only a conditional GET")
        await second.stager.release(staged)
    }

    /// What changes whenever a file is written or replaced: its inode, modification time and size.
    private static func identity(of path: String) throws -> [Int] {
        var info = stat()
        try #require(stat(path, &info) == 0)
        return [Int(info.st_ino), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_size)]
    }

    @Test func checkoutsDoNotRewriteTheIndexButANewEntryDoesAndTheIndexSurvivesARestart() async throws {
        let first = try await cachedFixture()
        defer { first.server.stop() }
        first.server.serveObject("/photo.jpg", SampleBytes.jpeg, etag: "\"v1\"")
        first.server.serveObject("/doc", SampleBytes.pdf, etag: "\"pdf\"")
        await first.stager.release(try await first.stage(.url(first.url("/photo.jpg"))))
        let index = "\(first.stagingDirectory)/\(SourceCache.indexName)"
        let written = try Self.identity(of: index)

        for _ in 0..<20 {
            await first.stager.release(try await first.stage(.url(first.url("/photo.jpg"))))
        }

        #expect(first.server.requests.filter { $0.isConditional }.count == 20, "every checkout was confirmed")
        #expect(try Self.identity(of: index) == written, "no checkout rewrote the index")
        await first.stager.release(try await first.stage(.url(first.url("/doc"))))
        #expect(try Self.identity(of: index) != written, "a new entry is written")
        #expect(first.stager.cache?.loadIndex().entries.map(\.key).sorted() == [first.url("/doc"), first.url("/photo.jpg")])

        let second = try await cachedFixture(directory: first.directory)
        defer { second.stop() }
        #expect(second.stager.cache?.usage.entries == 2)
        let staged = try await second.stage(.url(first.url("/photo.jpg")))
        #expect(first.server.fetches("/photo.jpg") == 1, "confirmed from the restored entry, not fetched again")
        await second.stager.release(staged)
    }

    @Test func anEntryWhoseFileChangedSizeIsDroppedOnRestart() async throws {
        let first = try await cachedFixture()
        first.server.serveObject("/photo.jpg", SampleBytes.jpeg, etag: "\"v1\"")
        await first.stager.release(try await first.stage(.url(first.url("/photo.jpg"))))
        first.stop(keepingFiles: true)
        let cacheFile = try #require(first.stagingFiles.first { $0.hasSuffix(".cache") })
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(first.stagingDirectory)/\(cacheFile)"))
        try handle.truncate(atOffset: 10)
        try handle.close()

        let second = try await cachedFixture(directory: first.directory)
        defer { second.stop() }

        #expect(second.stager.cache?.usage.entries == 0)
        #expect(second.stagingFiles == [SourceCache.indexName])
    }
}
