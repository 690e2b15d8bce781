import Foundation
import Testing

@testable import HTTPTransport
import TestSupport

/// Transfers against raw loopback sockets that never read, reset, or refuse.
@Suite(.timeLimit(.minutes(1))) struct HTTPClientFaultTests {
    /// Larger than every socket buffer between client and listener, so the upload must stall.
    static let largeFileSize: Int64 = 64 << 20

    @Test func anUploadWhoseBytesStopMovingFailsAsStalled() async throws {
        let listener = try LoopbackListener(.neverAccept)
        defer { listener.stop() }
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let source = try scratch.sparseFile("large.bin", size: Self.largeFileSize)
        // Longer than libcurl's one-second wait for `100 Continue`, so the body flows before it stalls.
        let client = try HTTPClient(configuration: .init(stallTimeout: .milliseconds(1500)))
        let sent = Locked<Int64>(0)

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await client.upload(
                fromFile: source, request: HTTPRequest(method: "PUT", url: listener.url + "/x?X-Amz-Signature=secret"),
                progress: { bytes, _ in sent.update { $0 = bytes } })
        }

        #expect(error?.code == .stalled)
        #expect(error?.isRetryable == true)
        #expect(error?.message.contains("secret") == false)
        let moved = sent.value
        #expect(moved > 0 && moved < Self.largeFileSize)
    }

    @Test func aPerRequestStallTimeoutOverridesTheClientDefault() async throws {
        let listener = try LoopbackListener(.neverAccept)
        defer { listener.stop() }
        let client = try HTTPClient(configuration: .init(stallTimeout: nil))

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await client.send(HTTPRequest(url: listener.url, stallTimeout: .milliseconds(200)))
        }

        #expect(error?.code == .stalled)
    }

    @Test func cancellingARunningUploadStopsItWithin100Milliseconds() async throws {
        let listener = try LoopbackListener(.neverAccept)
        defer { listener.stop() }
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let source = try scratch.sparseFile("large.bin", size: Self.largeFileSize)
        let client = try HTTPClient(configuration: .init(stallTimeout: nil))
        let (started, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

        let upload = Task {
            try await client.upload(
                fromFile: source, request: HTTPRequest(method: "PUT", url: listener.url + "/x"),
                progress: { _, _ in signal.yield() })
        }
        await waitFor("the upload to start") { for await _ in started { break } }
        let clock = ContinuousClock()
        let cancelledAt = clock.now
        upload.cancel()
        // The transfer stops on the curl thread; watch for that from a plain thread, so the measurement does not
        // include how long the cooperative pool (shared with every other suite) takes to resume a task.
        let stoppedAfter = await withCheckedContinuation { (continuation: CheckedContinuation<Duration, Never>) in
            Thread.detachNewThread {
                while client.loops.reduce(0, { $0 + $1.runningCount }) > 0, clock.now - cancelledAt < .seconds(5) { usleep(500) }
                continuation.resume(returning: clock.now - cancelledAt)
            }
        }
        let result = await waitFor("the upload to end") { await upload.result }

        #expect(throws: CancellationError.self) { try result?.get() }
        #expect(stoppedAfter < .milliseconds(100), "the transfer stopped \(stoppedAfter) after cancellation")
        #expect(client.runningTransfers == 0)
        #expect(client.loops.reduce(0) { $0 + $1.runningCount } == 0)
    }

    @Test func aRequestWaitingForTheCapCanBeCancelled() async throws {
        let listener = try LoopbackListener(.neverAccept)
        defer { listener.stop() }
        let client = try HTTPClient(configuration: .init(maxConcurrentTransfers: 1))
        try await client.slots.acquire()

        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let waiting = Task { try await client.download(HTTPRequest(url: listener.url), toFile: scratch.path("never")) }
        await yieldUntil { client.waitingTransfers == 1 }
        waiting.cancel()

        await #expect(throws: CancellationError.self) { try await waitFor("waiting to end") { await waiting.result }?.get() }
        #expect(client.waitingTransfers == 0)
        #expect(client.loops[0].peakRunningCount == 0)
        client.slots.release()
        #expect(client.runningTransfers == 0)
    }

    @Test func aConnectionResetIsARetryableTransportError() async throws {
        let listener = try LoopbackListener(.resetConnections)
        defer { listener.stop() }
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let source = try scratch.sparseFile("reset.bin", size: 4 << 20)
        let client = try HTTPClient()

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await client.upload(fromFile: source, request: HTTPRequest(method: "PUT", url: listener.url + "/r"))
        }

        #expect(error?.code == .transport)
        #expect(error?.isRetryable == true)
        #expect(error?.curlCode != nil)
    }

    @Test func aRefusedConnectionIsARetryableTransportError() async throws {
        let reserved = try LoopbackSocket.bound()
        defer { close(reserved.descriptor) }
        let client = try HTTPClient()

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await client.send(HTTPRequest(url: "http://127.0.0.1:\(reserved.port)/"))
        }

        #expect(error?.code == .transport)
        #expect(error?.isRetryable == true)
        #expect(error?.message.contains("onnect") == true)
    }

    @Test func aMissingUploadFileFailsWithoutRetry() async throws {
        let listener = try LoopbackListener(.neverAccept)
        defer { listener.stop() }
        let client = try HTTPClient()

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await client.upload(
                fromFile: "/nonexistent/attache/file", request: HTTPRequest(method: "PUT", url: listener.url))
        }

        #expect(error?.code == .localFile)
        #expect(error?.isRetryable == false)
    }
}
