import Foundation
import Testing

@testable import HTTPTransport
import TestSupport

/// A loop shut down while callers hand it transfers: each caller wakes the loop's thread after letting go of the
/// inbox lock, and the loop cleans its handle up only once those wake-ups are made.
@Suite struct CurlLoopShutdownTests {
    /// Nothing listens on the discard port of the loopback address: each transfer ends at once, refused.
    private let spec = TransferSpec(
        request: HTTPRequest(method: "GET", url: "http://127.0.0.1:9/"), body: .none, sink: .memory(limit: 0, truncate: true),
        progress: .none, stallTimeout: nil, connectTimeout: .seconds(5), userAgent: "test", uploadBufferSize: 4096)

    @Test func aShutdownAmidHandOversEndsEveryCallAndRefusesLaterOnes() async throws {
        for _ in 0..<20 {
            // An hour's idle poll: a hand-over whose wake-up went missing would wait that long, far past the wait.
            let loop = try CurlMultiLoop(idlePoll: .seconds(3600))
            let calls = 32
            let ended = await waitFor("every call handed over around the shutdown to end", timeout: .seconds(300)) { [spec] in
                await withTaskGroup(of: Void.self) { group in
                    for index in 0..<calls {
                        group.addTask { _ = try? await loop.perform(spec) }
                        if index == calls / 2 { loop.shutdown() }
                    }
                    var ended = 0
                    for await _ in group { ended += 1 }
                    return ended
                }
            }
            #expect(ended == calls)
            do {
                _ = try await loop.perform(spec)
                Issue.record("a transfer handed to a loop that was shut down ran")
            } catch let error as HTTPTransportError {
                #expect(error.code == .shutDown)
            }
        }
    }

    @Test func eachCallWakesTheSleepingThread() async throws {
        // Each call finds the thread asleep for an hour: only its wake-up brings the answer. The wait is generous
        // because each answer resumes its caller on the task pool, which the whole suite shares: once, with every
        // suite starting at the same time on two cores, 50 calls took longer than 30 s.
        let loop = try CurlMultiLoop(idlePoll: .seconds(3600))
        defer { loop.shutdown() }
        let answered = await waitFor("10 calls to a sleeping loop to be answered", timeout: .seconds(300)) { [spec] in
            var refused = 0
            for _ in 0..<10 {
                do { _ = try await loop.perform(spec) } catch is HTTPTransportError { refused += 1 } catch {}
            }
            return refused
        }
        #expect(answered == 10)
    }
}
