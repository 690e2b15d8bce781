import Foundation
import TestSupport
import Testing
@testable import DevServices

@Suite struct FaultInjectionTests {
    private let inOneHour = Date().addingTimeInterval(3600)

    private func put(_ store: LocalObjectStore, key: String, body: String = "hello",
                     extra: [String] = []) async throws -> Curl.Result {
        try await Curl.run(extra + ["--data-binary", body, "-X", "PUT",
                                    try store.signedURL(method: "PUT", key: key, expiresAt: inOneHour)])
    }

    @Test func serverErrorFiresExactlyTheRequestedNumberOfTimes() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        store.faults.inject(.serverError(status: 503, retryAfter: 7), times: 2)

        let first = try await put(store, key: "b/f/x")
        let second = try await put(store, key: "b/f/x")
        let third = try await put(store, key: "b/f/x")

        #expect(first.status == 503)
        #expect(first.headers["retry-after"] == "7")
        #expect(second.status == 503)
        #expect(third.status == 200)
        #expect(store.faults.firingCount(.serverError) == 2)
        #expect(store.object(forKey: "b/f/x")?.size == 5)
    }

    @Test func faultTargetedAtAFileIdSparesOtherFiles() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        store.faults.inject(.serverError(status: 500), target: .fileId("f2"))

        let spared = try await put(store, key: "b/f1/x")
        let hit = try await put(store, key: "b/f2/x")

        #expect(spared.status == 200)
        #expect(hit.status == 500)
        #expect(store.faults.firings.map(\.fileId) == ["f2"])
    }

    @Test func faultTargetedAtAPathPrefixSparesOtherPaths() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        store.faults.inject(.serverError(status: 502), target: .pathPrefix("/b2/"))

        let spared = try await put(store, key: "b1/f/x")
        let hit = try await put(store, key: "b2/f/x")

        #expect(spared.status == 200)
        #expect(hit.status == 502)
    }

    /// With and without `Expect: 100-continue` (curl sends it for bodies over 1 MiB unless told not to).
    @Test(arguments: [["-H", "Expect: 100-continue"], ["-H", "Expect:"]])
    func droppedConnectionMidBodyFailsTheClientAndStoresNothing(expect: [String]) async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let file = try TemporaryFile(count: 1 << 20)
        defer { file.remove() }
        store.faults.inject(.dropConnection(afterBodyBytes: 100_000), times: 1)

        let result = try await Curl.run(expect + [
            "-T", file.url.path, try store.signedURL(method: "PUT", key: "b/f/x", expiresAt: inOneHour),
        ])

        // 52: closed before any answer; 56: reset seen while reading; 55: reset seen while still sending.
        #expect([52, 55, 56].contains(result.exitCode), "curl exit \(result.exitCode): \(result.stderr)")
        #expect(result.status < 200, "no final answer, at most the interim 100 Continue")
        #expect(store.objects.isEmpty)
        #expect(store.requests.contains(ObjectRequestRecord(method: "PUT", path: "/b/f/x", status: nil)))
        let partials = try FileManager.default.contentsOfDirectory(
            atPath: store.directory.appendingPathComponent("partial").path)
        #expect(partials.isEmpty)
    }

    @Test func stalledUploadMakesTheClientTimeOut() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let file = try TemporaryFile(count: 256 << 10)
        defer { file.remove() }
        store.faults.inject(.stall(afterBodyBytes: 1000), times: 1)

        let result = try await Curl.run([
            "--max-time", "2", "-T", file.url.path,
            try store.signedURL(method: "PUT", key: "b/f/x", expiresAt: inOneHour),
        ])

        #expect(result.exitCode == 28)
        #expect(store.objects.isEmpty)
        #expect(store.faults.stalledRequests == 1, "the server still holds the request, not reading")
    }

    @Test func stalledAnswerMakesTheClientTimeOut() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        _ = try await put(store, key: "b/f/x")
        store.faults.inject(.stall(), times: 1)

        let result = try await Curl.run(["--max-time", "2", try store.url(forKey: "b/f/x")])

        #expect(result.exitCode == 28)
        #expect(store.faults.firingCount(.stall) == 1)
    }

    @Test func stallWithADurationResumesAndCompletes() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        store.faults.inject(.stall(afterBodyBytes: 2, duration: .milliseconds(200)), times: 1)

        let result = try await put(store, key: "b/f/x")

        #expect(result.status == 200)
        #expect(store.object(forKey: "b/f/x")?.size == 5)
    }

    @Test func releasedStallCompletesTheUpload() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        store.faults.inject(.stall(afterBodyBytes: 2), times: 1)

        async let result = put(store, key: "b/f/x", extra: ["--max-time", "30"])
        #expect(await eventually { store.faults.stalledRequests == 1 })
        store.faults.releaseStalls()

        #expect(try await result.status == 200)
        #expect(store.object(forKey: "b/f/x")?.size == 5)
    }

    @Test func stopReturnsWhileARequestIsStalled() async throws {
        let store = try LocalObjectStore()
        store.faults.inject(.stall())

        async let result = Curl.run(["--max-time", "30", "\(store.baseURL)/b/f/x"])
        #expect(await eventually { store.faults.stalledRequests == 1 })
        store.stop()

        // The stalled request is cut off (or, released as the store stopped, answered 404): never left hanging.
        let outcome = try await result
        #expect(outcome.exitCode != 28)
        #expect(outcome.status != 200)
    }

    @Test func trickledResponseIsNoFasterThanItsRate() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let body = String(repeating: "x", count: 8000)
        _ = try await put(store, key: "b/f/x", body: body)
        store.faults.inject(.trickleResponse(bytesPerSecond: 8000))

        let clock = ContinuousClock()
        let start = clock.now
        let result = try await Curl.run([try store.url(forKey: "b/f/x")])
        let elapsed = clock.now - start

        #expect(result.status == 200)
        #expect(result.bodyText == body)
        // 8000 bytes at 8000 B/s: about a second; a lower bound only, as a loaded machine may be slower.
        #expect(elapsed >= .milliseconds(750))
    }

    @Test func trickledUploadIsNoFasterThanItsRate() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        let file = try TemporaryFile(count: 16_000)
        defer { file.remove() }
        store.faults.inject(.trickleRequestBody(bytesPerSecond: 16_000))

        let clock = ContinuousClock()
        let start = clock.now
        let result = try await Curl.run([
            "-T", file.url.path, try store.signedURL(method: "PUT", key: "b/f/x", expiresAt: inOneHour),
        ])
        let elapsed = clock.now - start

        #expect(result.status == 200)
        #expect(store.object(forKey: "b/f/x")?.size == 16_000)
        #expect(elapsed >= .milliseconds(750))
    }

    @Test func clearedPlanLetsRequestsThrough() async throws {
        let store = try LocalObjectStore()
        defer { store.stop() }
        store.faults.inject(.serverError())
        let before = try await put(store, key: "b/f/x")

        store.faults.clear()
        let after = try await put(store, key: "b/f/x")

        #expect(before.status == 503)
        #expect(after.status == 200)
    }

    @Test func removedRuleStopsFiring() {
        let plan = FaultPlan()
        let rule = plan.inject(.serverError())
        #expect(plan.claim([.serverError], path: "/a", fileId: nil) == [.serverError()])

        plan.remove(rule)

        #expect(plan.claim([.serverError], path: "/a", fileId: nil).isEmpty)
    }

    @Test func earliestMatchingRuleOfAKindFiresAlone() {
        let plan = FaultPlan()
        plan.inject(.serverError(status: 500), times: 1)
        plan.inject(.serverError(status: 502), times: 1)

        #expect(plan.claim([.serverError], path: "/", fileId: nil) == [.serverError(status: 500)])
        #expect(plan.claim([.serverError], path: "/", fileId: nil) == [.serverError(status: 502)])
        #expect(plan.claim([.serverError], path: "/", fileId: nil).isEmpty)
    }
}
