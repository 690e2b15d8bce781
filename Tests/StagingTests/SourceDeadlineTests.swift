import EmbeddedHTTP
import Foundation
import Testing


/// Every pending state has a way out: a source that trickles below `sources.minSpeed` over a stall window, or
/// that runs past `sources.fetchTimeout`, fails the file `ERR_SOURCE_FETCH_FAILED` (retryable) instead of keeping
/// it staging — and its batch, and its record's offset, pending — forever. The windows are shrunk to a second.
@Suite(.timeLimit(.minutes(1))) struct SourceDeadlineTests {
    private func fixture(minimumSpeed: Int64 = 1024, fetchTimeout: Duration = .seconds(600)) async throws -> StagingFixture {
        var options = StagingFixture.Options()
        options.stallTimeout = .seconds(1)
        options.minimumSpeed = minimumSpeed
        options.fetchTimeout = fetchTimeout
        return try await StagingFixture(options)
    }

    @Test func aSourceTricklingBelowTheMinimumSpeedFailsRetryablyWithinAFewWindows() async throws {
        let fixture = try await fixture()
        defer { fixture.stop() }
        // Ten bytes a second: a byte every 100 ms keeps the no-progress check happy; 400 bytes would take 40 s.
        let trickle = PacedProducer(total: 400, chunk: 1, every: .milliseconds(100))
        fixture.server.route("/trickle.bin") { _, _ in .init(status: 200, body: .stream(length: 400, producer: trickle)) }

        let error = await fixture.stagingError(.url(fixture.url("/trickle.bin")))

        #expect(error?.code == .sourceFetchFailed, "\(error?.description ?? "staged")")
        #expect(error?.isRetryable == true)
        // Given up on while the body was still coming, not after it ended: measured by the server's bytes, not the
        // test's clock, which a loaded machine stretches (11.7 and 21.1 s were seen under the whole suite, 1.1 s alone).
        #expect(!trickle.finished)
        #expect(fixture.stagingFiles.isEmpty)
    }

    @Test func aSourceStillRunningAtTheFetchTimeoutFailsRetryably() async throws {
        let fixture = try await fixture(fetchTimeout: .seconds(1))
        defer { fixture.stop() }
        // 40 KiB/s is well above the speed floor, but the whole body would take 25 s.
        let long = PacedProducer(total: 1 << 20, chunk: 4096, every: .milliseconds(100))
        fixture.server.route("/long.bin") { _, _ in .init(status: 200, body: .stream(length: nil, producer: long)) }

        let error = await fixture.stagingError(.url(fixture.url("/long.bin")), sizeLimit: 2 << 20)

        #expect(error?.code == .sourceFetchFailed, "\(error?.description ?? "staged")")
        #expect(error?.isRetryable == true)
        // Cut off while the body was still coming (the server's bytes, not the test's clock, as above).
        #expect(!long.finished)
        #expect(fixture.stagingFiles.isEmpty)
    }

    @Test func aSlowSourceAboveTheMinimumSpeedIsStagedEvenAcrossSeveralWindows() async throws {
        let fixture = try await fixture(minimumSpeed: 1024)
        defer { fixture.stop() }
        // 20 KiB/s for about 2.5 s: slow, but never below the floor.
        fixture.server.route("/slow.bin") { _, _ in
            .init(status: 200, body: .stream(length: 50 * 1024, producer: PacedProducer(total: 50 * 1024, chunk: 2048, every: .milliseconds(100))))
        }

        let staged = try await fixture.stage(.url(fixture.url("/slow.bin")))

        #expect(staged.size == 50 * 1024)
        await fixture.stager.release(staged)
    }
}
