import Foundation
import OperatorTools
import Records
import Testing

/// The terminal view of `attache watch`: bars that follow the events, and lines that fit the terminal.
@Suite struct ProgressBoardTests {
    private static func event(_ type: String, batch: String = "b1", _ data: String) throws -> WatchedEvent {
        try #require(WatchedEvent(json: Array(#"{"type":"\#(type)","subject":"\#(batch)","sequence":"3","data":\#(data)}"#.utf8)))
    }

    private static let start = Date(timeIntervalSince1970: 1000)

    @Test func aFileGoesFromProgressToUploadedAtAHundredPercent() throws {
        var board = ProgressBoard()
        board.take(try Self.event("attache.file.progress", #"{"fileId":"photo.jpg","loaded":0,"total":2097152,"percent":0}"#), at: Self.start)
        board.take(try Self.event("attache.file.progress", #"{"fileId":"photo.jpg","loaded":1048576,"total":2097152,"percent":50}"#),
                   at: Self.start.addingTimeInterval(0.5))
        #expect(board.lines(width: 100) == ["photo.jpg  [##########----------]  50%  1.0 MiB/2.0 MiB  2.0 MiB/s  uploading"])
        board.take(try Self.event("attache.file.uploaded", #"{"fileId":"photo.jpg","attachment":{"size":2097152}}"#), at: Self.start.addingTimeInterval(1))
        #expect(board.lines(width: 100) == ["photo.jpg  [####################] 100%  2.0 MiB/2.0 MiB  uploaded"])
    }

    @Test func aFileOfABatchWhoseJobNamedATenantShowsTheTenant() throws {
        var board = ProgressBoard()
        let event = try #require(WatchedEvent(json: Array(
            #"{"type":"attache.file.progress","subject":"b1","sequence":"3","tenant":"acme","data":{"fileId":"photo.jpg","loaded":1,"total":2,"percent":50}}"#.utf8)))
        #expect(event.tenant == "acme")
        board.take(event, at: Self.start)
        board.take(try Self.event("attache.file.progress", batch: "b2", #"{"fileId":"scan.pdf","loaded":1,"total":2,"percent":50}"#), at: Self.start)
        let lines = board.lines(width: 100)
        #expect(lines.first?.hasPrefix("acme: b1/photo.jpg  [") == true, "\(lines)")
        #expect(lines.last?.hasPrefix("b2/scan.pdf  [") == true, "no tenant named: \(lines)")
    }

    @Test func failuresShowTheirStateAndCodeAndMessagesGetALine() throws {
        var board = ProgressBoard()
        board.take(try Self.event("attache.file.failed", #"{"fileId":"a","error":{"code":"ERR_UPLOAD_FAILED"},"willRetry":true}"#), at: Self.start)
        board.take(try Self.event("attache.file.rejected", #"{"fileId":"b","error":{"code":"ERR_FILE_SIZE_EXCEEDED"}}"#), at: Self.start)
        #expect(board.rows.map(\.state) == ["retrying", "rejected"])
        #expect(board.lines(width: 80).map { $0.hasSuffix("retrying ERR_UPLOAD_FAILED") || $0.hasSuffix("rejected ERR_FILE_SIZE_EXCEEDED") } == [true, true])
        let sent = board.take(try Self.event("attache.message.sent", #"{"muid":"m","messageType":"image","fileIds":["a","c"]}"#), at: Self.start)
        #expect(sent == "batch b1 message sent: image [a, c]")
        let drained = board.take(try Self.event("attache.batch.completed",
                                                #"{"result":{"successful":[{}],"rejected":[{}],"rejectedTotal":1,"failed":[]}}"#), at: Self.start)
        #expect(drained == "batch b1 drained: 1 uploaded, 1 rejected, 0 failed")
    }

    @Test(arguments: [20, 30, 40, 60, 80, 120])
    func everyLineFitsTheWidthAndKeepsPercentAndState(width: Int) throws {
        var board = ProgressBoard()
        board.take(try Self.event("attache.file.progress", batch: "a-rather-long-batch-identifier",
                                  #"{"fileId":"a-very-long-file-name-from-a-camera-IMG_20261201_174512.jpg","loaded":5000,"total":10000,"percent":50}"#),
                   at: Self.start)
        board.take(try Self.event("attache.file.failed", batch: "other", #"{"fileId":"x","error":{"code":"ERR_X"},"willRetry":false}"#), at: Self.start)
        for line in board.lines(width: width) {
            #expect(line.count <= width, "\(line)")
            #expect(line.contains("%"), "\(line)")
        }
        #expect(board.lines(width: width).last?.hasSuffix("failed ERR_X") == true || width < 30)
        #expect(board.lines(width: 120).first?.hasPrefix("a-rather-long-batch-identifier/") == true, "two batches: names carry the batch")
    }
}
