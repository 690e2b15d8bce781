@testable import Dashboard
import Foundation
import Synchronization
import Testing
import TestSupport

/// The bounds on the event streams (DESIGN §10): at most `dashboard.maxClients` at once, and a client more than
/// 4 MiB behind is disconnected while the others keep receiving.
@Suite struct StreamBoundsTests {
    /// Stored files of new batches `step-S-batch-I-…`: ids of 120 bytes, so each row weighs some 330 bytes.
    private func events(_ batches: Range<Int>, step: Int) -> (inout DashboardModel) -> Void {
        { model in
            for index in batches {
                let id = "step-\(step)-batch-\(index)-"
                model.take(event: EventRecords.uploaded(id + String(repeating: "x", count: 120 - id.utf8.count), "f", size: 10), readAt: Date())
            }
        }
    }

    @Test func aStreamBeyondMaxClientsIsRefusedUntilOneCloses() throws {
        let hub = DashboardHub(limits: DashboardLimits(), streams: StreamLimits(maxClients: 2), controls: false)
        let first = try hub.openedStream().id
        _ = try hub.openedStream()
        #expect(hub.openStream() == .full(limit: 2))
        hub.closeStream(first)
        #expect(throws: Never.self) { try hub.openedStream() }
        #expect(hub.streamCount == 2)
    }

    @Test func aDeltaIsEncodedOnceAndSharedByEveryStream() throws {
        let hub = DashboardHub(limits: DashboardLimits(), controls: false)
        let first = try hub.openedStream().id
        let second = try hub.openedStream().id
        hub.apply(events(0..<3, step: 0))
        guard case .delta(let one) = hub.next(stream: first, waiting: .zero),
              case .delta(let other) = hub.next(stream: second, waiting: .zero) else {
            Issue.record("both streams get the delta")
            return
        }
        #expect(one == other)
        let sameStorage = one.withUnsafeBufferPointer { a in other.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
        #expect(sameStorage, "the streams share one encoding of the delta, not a copy each")
    }

    @Test func aStreamThatStopsTakingIsDroppedOnceTooFarBehindWhileOthersKeepReceiving() throws {
        let backlog = 4000
        let hub = DashboardHub(limits: DashboardLimits(maxBatches: 10_000), streams: StreamLimits(maxBacklog: backlog, interval: .zero),
                               controls: false)
        let reader = try hub.openedStream().id
        let stalled = try hub.openedStream().id
        let cuts = Mutex(0)
        hub.attachConnection(of: stalled) { cuts.withLock { $0 += 1 } }
        // Sizes of the deltas the reader took: the stalled stream was sent the same ones.
        var published: [Int] = []
        for step in 0..<100 where hub.droppedStreams == 0 {
            hub.apply(events(0..<5, step: step))
            guard case .delta(let message) = hub.next(stream: reader, waiting: .zero) else {
                Issue.record("the reader gets every delta")
                return
            }
            published.append(message.count)
        }
        #expect(hub.droppedStreams == 1)
        #expect(cuts.withLock { $0 } == 1, "its connection is cut")
        #expect(hub.next(stream: stalled, waiting: .zero) == .closed)
        #expect(hub.streamCount == 1)
        // Dropped at the first delta that found more than the backlog waiting: not earlier, not later.
        let waiting = published.dropLast().reduce(0, +)
        #expect(waiting > backlog)
        #expect(waiting - published[published.count - 2] <= backlog)
        hub.apply(events(0..<1, step: 1000))
        #expect(try hub.next(stream: reader, waiting: .zero).deltaJSON()["batches"]?.arrayValue?.count == 1,
                "the reader keeps receiving")
    }

    @Test func theStreamBeyondMaxClientsIsAnswered503WithAMessage() async throws {
        let hub = DashboardHub(limits: DashboardLimits(), streams: StreamLimits(maxClients: 2), controls: false)
        let server = try DashboardServer(host: "127.0.0.1", port: 0, hub: hub, controls: nil)
        defer { server.stop() }
        let clients = try (0..<2).map { _ in try #require(HeldConnection(port: server.port)) }
        for client in clients {
            client.send("GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
            #expect(await client.receive(until: "event: snapshot"))
        }
        let refused = try await Curl.run(["--max-time", "10", "\(server.baseURL)/events"])
        #expect(refused.status == 503)
        #expect(refused.bodyText.contains("dashboard.maxClients") && refused.headers["retry-after"] != nil)
        #expect(try await Curl.run(["\(server.baseURL)/api/feed"]).status == 200, "the limit is on streams, not on the page")
        #expect(hub.streamCount == 2)
    }

    @Test func aClientThatStopsReadingIsCutOffAfter4MiBWhileOthersKeepReceiving() async throws {
        let hub = DashboardHub(limits: DashboardLimits(maxBatches: 200_000), streams: StreamLimits(interval: .zero), controls: false)
        #expect(hub.streamLimits.maxBacklog == 4 << 20)
        let server = try DashboardServer(host: "127.0.0.1", port: 0, hub: hub, controls: nil)
        defer { server.stop() }
        let request = "GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n"
        // A small receive window: the stalled client holds little, so the backlog builds up on the server.
        let stalled = try #require(HeldConnection(port: server.port, receiveBuffer: 4096))
        stalled.send(request)
        let reader = try #require(HeldConnection(port: server.port))
        reader.send(request)
        #expect(await reader.receive(until: "event: snapshot"))
        #expect(await eventually { hub.streamCount == 2 })
        // In lock step with the reader, so that only the stalled client falls behind: some 200 KB a step, until the
        // kernel's buffers are full and 4 MiB more wait in the hub (a few dozen steps; 400 would be 80 MB).
        var step = 0
        while hub.droppedStreams == 0, step < 400 {
            hub.apply(events(0..<600, step: step))
            #expect(await reader.receive(until: #""id":"step-\#(step)-batch-599-"#), "the reader gets step \(step)")
            step += 1
        }
        #expect(hub.droppedStreams == 1)
        #expect(await stalled.drainsToEnd(timeoutMilliseconds: 20_000), "the stalled client's connection is closed")
        hub.apply(events(0..<1, step: 10_000))
        #expect(await reader.receive(until: #""id":"step-10000-batch-0-"#), "the reader keeps receiving")
        #expect(hub.streamCount == 1)
    }
}
