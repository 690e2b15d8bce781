import DevServices
import EmbeddedHTTP
import Foundation
import TestSupport
import Synchronization
import Testing
import UploadEngine
import WireFormat

/// Source fetching faults through the whole engine and the Worker's staging.
@Suite(.timeLimit(.minutes(1))) struct SourceFaultTests {
    @Test func aSourceServerErrorFailsTheFileWithSourceFetchFailed() async throws {
        let harness = try TransferHarness()
        defer { harness.stop() }
        let url = try await harness.putSource(TestBytes.make(100_000), key: "sources/photo.jpg")
        harness.services.store.faults.inject(.serverError(status: 500), target: .pathPrefix("/sources/"))

        try await expectFetchFailure(harness, FileItem(fileId: "f1", name: "photo.jpg", mimeType: "image/jpeg", source: .url(url)))
    }

    @Test func aSourceTricklingBelowTheMinimumSpeedFailsTheFileAndTheBatchSettles() async throws {
        var options = TransferHarness.Options()
        options.stallTimeout = .seconds(1)
        let harness = try TransferHarness(options)
        defer { harness.stop() }
        let url = try await harness.putSource(TestBytes.make(100_000), key: "sources/photo.jpg")
        // Twenty bytes a second: never a second without a byte, so only the speed floor can end it.
        harness.services.store.faults.inject(.trickleResponse(bytesPerSecond: 20), target: .pathPrefix("/sources/"))

        try await expectFetchFailure(harness, FileItem(fileId: "f1", name: "photo.jpg", mimeType: "image/jpeg", source: .url(url)))
    }

    @Test func aSourceRunningPastTheFetchTimeoutFailsTheFileAndTheBatchSettles() async throws {
        var options = TransferHarness.Options()
        options.fetchTimeout = .milliseconds(500)
        let harness = try TransferHarness(options)
        defer { harness.stop() }
        let url = try await harness.putSource(TestBytes.make(1_000_000), key: "sources/video.mp4")
        // 100 KB/s: fast enough for any speed floor, ten seconds for the whole file.
        harness.services.store.faults.inject(.trickleResponse(bytesPerSecond: 100_000), target: .pathPrefix("/sources/"))

        try await expectFetchFailure(harness, FileItem(fileId: "f1", name: "video.mp4", mimeType: "video/mp4", source: .url(url)))
    }

    /// The file fails retryably with `ERR_SOURCE_FETCH_FAILED` before any presign call, and nothing stays staged.
    private func expectFetchFailure(_ harness: TransferHarness, _ item: FileItem,
                                    sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let result = try #require(await harness.run([item]), sourceLocation: sourceLocation)
        let failure = try #require(harness.failures(of: item.fileId).first, sourceLocation: sourceLocation)
        #expect(failure.error.code == .sourceFetchFailed, sourceLocation: sourceLocation)
        #expect(failure.error.isRetryable, sourceLocation: sourceLocation)
        #expect(result.failed.map(\.error.code) == ["ERR_SOURCE_FETCH_FAILED"], sourceLocation: sourceLocation)
        #expect(harness.services.presign.calls.isEmpty, sourceLocation: sourceLocation)
        #expect(await eventually { harness.stagedFiles.isEmpty }, sourceLocation: sourceLocation)
    }

    @Test func aMissingSourceIsRejectedWithSourceUnresolvable() async throws {
        let harness = try TransferHarness()
        defer { harness.stop() }
        let url = try harness.services.store.url(forKey: "sources/missing.jpg")

        let result = try #require(
            await harness.run([FileItem(fileId: "f1", name: "photo.jpg", mimeType: "image/jpeg", source: .url(url))]))

        #expect(harness.rejections(of: "f1").map(\.code) == [.sourceUnresolvable])
        #expect(harness.failures(of: "f1").isEmpty)
        #expect(result.rejected.map(\.error.code) == ["ERR_SOURCE_UNRESOLVABLE"])
    }

    @Test func aSourceLargerThanTheLimitIsAbortedMidDownloadAndNothingStaysInStaging() async throws {
        let limit: Int64 = 1024 * 1024
        let total: Int64 = 256 * 1024 * 1024
        var options = TransferHarness.Options()
        options.fileSizeMax = limit
        let harness = try TransferHarness(options)
        defer { harness.stop() }
        // No Content-Length: the limit can only be noticed while the bytes arrive.
        let produced = ProducedBytes()
        let source = try EmbeddedHTTPServer { _ in
            .respond(
                ServerResponse(
                    status: 200, headers: [HTTPHeader("Content-Type", "application/octet-stream")],
                    body: .stream(length: nil, producer: EndlessProducer(total: total, counter: produced))))
        }
        defer { source.stop() }

        let result = try #require(
            await harness.run([
                FileItem(fileId: "f1", name: "huge.bin", mimeType: "application/octet-stream", source: .url(source.baseURL + "/huge.bin"))
            ]))

        #expect(harness.rejections(of: "f1").map(\.code) == [.fileSizeExceeded])
        #expect(result.rejected.map(\.error.code) == ["ERR_FILE_SIZE_EXCEEDED"])
        let sent = produced.value
        #expect(sent > limit)
        #expect(sent < total / 4)
        #expect(harness.stagedFiles.isEmpty)
        #expect(harness.services.presign.calls.isEmpty)
    }

    @Test func aSourceAnnouncingMoreThanTheLimitIsRejectedBeforeAnyByteIsStaged() async throws {
        var options = TransferHarness.Options()
        options.fileSizeMax = 256 * 1024
        let harness = try TransferHarness(options)
        defer { harness.stop() }
        let url = try await harness.putSource(TestBytes.make(1024 * 1024), key: "sources/large.bin")

        let result = try #require(
            await harness.run([FileItem(fileId: "f1", name: "large.bin", mimeType: "application/octet-stream", source: .url(url))]))

        #expect(result.rejected.map(\.error.code) == ["ERR_FILE_SIZE_EXCEEDED"])
        #expect(harness.stagedFiles.isEmpty)
    }
}
