@testable import Dashboard
import Foundation
import Testing
import TestSupport
import WireFormat

/// The hub between the feed and the event streams: a snapshot to start with, then coalesced deltas.
@Suite struct DashboardHubTests {
    private func hub() -> DashboardHub {
        DashboardHub(limits: DashboardLimits(maxBatches: 10), controls: false, clock: { EventRecords.date(EventRecords.start) })
    }

    private func json(_ bytes: [UInt8]) throws -> JSONValue { try JSONParser.parse(bytes) }

    @Test func aStreamStartsWithTheWholeModel() throws {
        let hub = hub()
        hub.apply { $0.take(event: EventRecords.uploaded("b", "f", size: 5), readAt: Date()) }
        let snapshot = try json(try hub.openedStream().snapshot)
        #expect(snapshot["batches"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["b"])
        #expect(snapshot["controls"]?.boolValue == false)
        #expect(snapshot["now"]?.wholeNumber == EventRecords.start)
        #expect(snapshot["workers"]?.arrayValue?.count == 1 && snapshot["errors"] != nil && snapshot["deadLetters"] != nil)
    }

    @Test func changesWithinTheIntervalComeAsOneDeltaWithTheLatestRows() throws {
        let clock = ManualClock(start: EventRecords.date(EventRecords.start))
        let hub = DashboardHub(limits: DashboardLimits(maxBatches: 10), streams: StreamLimits(interval: .milliseconds(250)),
                               controls: false, clock: { clock.now() })
        let stream = try hub.openedStream().id
        hub.apply { $0.take(event: EventRecords.uploaded("a", "f", size: 1), readAt: Date()) }
        #expect(try hub.next(stream: stream, waiting: .zero).deltaJSON()["batches"]?.arrayValue?.count == 1,
                "the first change after a quiet spell goes out at once")
        hub.apply { $0.take(event: EventRecords.progress("b", "f", loaded: 1, total: 10), readAt: Date()) }
        hub.apply { $0.take(event: EventRecords.uploaded("b", "f", size: 10), readAt: Date()) }
        #expect(hub.next(stream: stream, waiting: .zero) == .idle, "the next waits for the interval")
        clock.advance(by: .milliseconds(250))
        let delta = try hub.next(stream: stream, waiting: .zero).deltaJSON()
        let rows = try #require(delta["batches"]?.arrayValue)
        #expect(rows.count == 1)
        #expect(rows[0]["id"]?.stringValue == "b")
        #expect(rows[0]["files"]?.arrayValue?.compactMap(\.wholeNumber) == [0, 0, 1, 0, 0, 0, 0])
        #expect(delta["errors"] == nil, "an unchanged panel is not sent")
        #expect(hub.next(stream: stream, waiting: .zero) == .idle)
    }

    @Test func aForgottenBatchIsNamedInTheDelta() throws {
        let hub = DashboardHub(limits: DashboardLimits(maxBatches: 1), controls: true)
        hub.apply { $0.take(event: EventRecords.uploaded("old", "f", size: 1), readAt: Date()) }
        let stream = try hub.openedStream().id
        hub.apply { $0.take(event: EventRecords.uploaded("new", "f", size: 1), readAt: Date()) }
        let delta = try hub.next(stream: stream, waiting: .zero).deltaJSON()
        #expect(delta["removed"]?.arrayValue?.compactMap(\.stringValue) == ["old"])
        #expect(delta["batches"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["new"])
    }

    @Test func closingEndsWaitingStreamsAndRefusesNewOnes() async throws {
        let hub = hub()
        let stream = try hub.openedStream().id
        let waiter = Task.detached { hub.next(stream: stream, waiting: .seconds(30)) }
        // The waiter may not be waiting yet: closing first must end its wait all the same.
        hub.close()
        #expect(await waitFor("the waiting stream to end with the close") { await waiter.value } == .closed)
        #expect(hub.openStream() == .closed)
    }

    @Test func aBatchPageHasItsFilesMessagesAndTimeline() throws {
        let hub = hub()
        hub.apply { model in
            model.take(event: EventRecords.rejected("b", "big", code: "ERR_FILE_SIZE_EXCEEDED"), readAt: Date())
            model.take(event: EventRecords.uploaded("b", "ok", size: 3), readAt: Date())
        }
        let detail = try json(try #require(hub.detail(of: "b")))
        let files = try #require(detail["fileList"]?.arrayValue)
        #expect(files.compactMap { $0["state"]?.stringValue } == ["rejected", "uploaded"])
        #expect(files[0]["error"]?["code"]?.stringValue == "ERR_FILE_SIZE_EXCEEDED")
        #expect(files[1]["attachment"]?["url"]?.stringValue == "http://store/ok")
        #expect(detail["timeline"]?.arrayValue?.count == 2)
        #expect(hub.detail(of: "missing") == nil)
    }
}
