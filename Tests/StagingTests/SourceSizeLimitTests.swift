import EmbeddedHTTP
import Foundation
import TestSupport
import Testing


/// The size limit holds while bytes arrive, whatever the source, and nothing is left behind when it trips.
@Suite(.timeLimit(.minutes(1))) struct SourceSizeLimitTests {
    @Test func aDownloadGrowingPastTheLimitIsAbortedMidStreamAndNothingStaysOnDisk() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        let limit: Int64 = 1024 * 1024
        let total: Int64 = 512 * 1024 * 1024
        let produced = ProducedBytes()
        // No Content-Length: the limit can only be noticed as the bytes arrive.
        fixture.server.route("/growing.bin") { _, _ in
            .init(status: 200, body: .stream(length: nil, producer: EndlessProducer(total: total, counter: produced)))
        }

        let error = await fixture.stagingError(.url(fixture.url("/growing.bin")), sizeLimit: limit)

        #expect(error?.code == .fileSizeExceeded)
        #expect(produced.value > limit)
        #expect(produced.value < total / 8)
        #expect(fixture.stagingFiles.isEmpty)
    }

    @Test func anAnnouncedLengthOverTheLimitIsRefusedBeforeAnyByteIsWritten() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        fixture.server.serve("/large.pdf", SampleBytes.pdf + SampleBytes.filler(200_000))

        let error = await fixture.stagingError(.url(fixture.url("/large.pdf")), sizeLimit: 100_000)

        #expect(error?.code == .fileSizeExceeded)
        #expect(fixture.stagingFiles.isEmpty)
    }

    @Test func pathAndInlineSourcesOverTheLimitLeaveNothing() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        try fixture.writeSource("big.bin", SampleBytes.filler(5000))

        let path = await fixture.stagingError(.path("big.bin"), sizeLimit: 4999)
        let inline = await fixture.stagingError(.data(Data(SampleBytes.filler(5000))), sizeLimit: 4999)

        #expect(path?.code == .fileSizeExceeded)
        #expect(inline?.code == .fileSizeExceeded)
        #expect(fixture.stagingFiles.isEmpty)
    }

    @Test func aFileExactlyAtTheLimitIsStaged() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        fixture.server.serve("/exact.bin", SampleBytes.filler(5000), length: false)

        let staged = try await fixture.stage(.url(fixture.url("/exact.bin")), sizeLimit: 5000)

        #expect(staged.size == 5000)
        await fixture.stager.release(staged)
    }

    @Test func cancellingADownloadRemovesThePartialFile() async throws {
        let fixture = try await StagingFixture()
        defer { fixture.stop() }
        let produced = ProducedBytes()
        fixture.server.route("/slow.bin") { _, _ in
            .init(status: 200, body: .stream(length: nil, producer: EndlessProducer(total: 1 << 40, counter: produced)))
        }
        let task = Task { try await fixture.stage(.url(fixture.url("/slow.bin")), sizeLimit: 1 << 40) }
        await yieldUntil { produced.value >= 4 * 1024 * 1024 }

        task.cancel()
        let outcome = await waitFor("the staging to end") { await task.result }

        #expect(throws: CancellationError.self) { try outcome?.get() }
        #expect(fixture.stagingFiles.isEmpty)
    }
}
