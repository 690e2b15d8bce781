import Foundation
import OperatorTools
import Records
import Testing
import UploadEngine
import WireFormat

/// `attache batch`: the changelog folded to the latest snapshot per batch, and a batch presented with the reference's
/// getters.
@Suite struct BatchViewTests {
    /// A snapshot as the engine's codec writes it: two files uploaded (an image and a PDF), one rejected, one failed,
    /// one message sent with the caption, the document not sent yet.
    static let snapshot = #"""
    {"v":1,"batchId":"b1","receiver":{"id":"u1","type":"user"},"concurrency":1,"message":{"send":"manual","caption":"Trip"},"files":[{"fileId":"up","slot":0,"name":"up.png","mimeType":"image/png","requestId":"r1","generation":0,"attempt":1,"state":"uploaded","attachment":{"name":"up.png","url":"https://cdn.test/up","mimeType":"image/png","size":1000,"sha256":"sha-up"},"object":"https://store.test/up","source":{"url":"https://files.test/x.png"}},{"fileId":"bad","slot":1,"name":"bad.png","mimeType":"image/png","requestId":"r1","generation":0,"attempt":1,"state":"rejected","error":{"code":"ERR_FILE_DATA_EMPTY","message":"the file has no data","retryable":false},"source":{"bytes":0}},{"fileId":"doc","slot":2,"name":"doc.pdf","mimeType":"application/pdf","requestId":"r1","generation":0,"attempt":1,"state":"uploaded","attachment":{"name":"doc.pdf","url":"https://cdn.test/doc","mimeType":"application/pdf","size":1000,"sha256":"sha-doc"},"object":"https://store.test/doc","source":{"url":"https://files.test/d.pdf"}},{"fileId":"fail","slot":3,"name":"fail.png","mimeType":"image/png","requestId":"r1","generation":0,"attempt":1,"state":"failed","source":{"url":"https://files.test/f.png"},"error":{"code":"ERR_SOURCE_FETCH_FAILED","message":"HTTP 503","retryable":true}}],"rejectedDropped":0,"nextSlot":4,"sent":[{"muid":"dad9ad95-33cf-5628-b466-d61e4b08031c","fileIds":["up"]}],"captionSent":true,"sendDue":false,"sendRequestId":"r1","lastRequestId":"r1","sequence":0,"stateVersion":12,"completions":1,"updatedAt":1800000000000,"writerGeneration":1}
    """#

    private static func snapshot(batchId: String, updatedAt: Int64, receiver: String = "u1") -> Data {
        Data(snapshot.replacingOccurrences(of: #""batchId":"b1""#, with: #""batchId":"\#(batchId)""#)
            .replacingOccurrences(of: "1800000000000", with: String(updatedAt))
            .replacingOccurrences(of: #""id":"u1""#, with: #""id":"\#(receiver)""#).utf8)
    }


    private func view() throws -> BatchView {
        var changelog = ChangelogBatches()
        changelog.take(key: "b1", value: Data(Self.snapshot.utf8), partition: 0, offset: 0)
        return BatchView(try #require(changelog.batches(configuration: EngineConfiguration()).batches.first).batch)
    }

    @Test func theGettersOfTheReferenceAreShown() throws {
        let view = try view()
        #expect(view.status == "idle")
        #expect(view.count == 4)
        #expect(view.attachments.map(\.fileId) == ["up", "doc"])
        #expect(view.attachmentsByType["image"]?.map(\.fileId) == ["up"])
        #expect(view.attachmentsByType["file"]?.map(\.fileId) == ["doc"])
        #expect(view.attachmentsByType["video"] == [])
        #expect(view.rejected.map(\.error.code) == ["ERR_FILE_DATA_EMPTY"])
        #expect(view.failed.map(\.fileId) == ["fail"])
        #expect(view.sent == [BatchView.Message(muid: "dad9ad95-33cf-5628-b466-d61e4b08031c", fileIds: ["up"])])
        #expect(view.unsent == ["doc"])
        #expect(view.updatedAt == "2027-01-15T08:00:00.000Z")
        let text = view.text
        for line in ["  status       idle", "  count        4", "  image  1  up", "  file   1  doc",
                     "  bad  ERR_FILE_DATA_EMPTY  the file has no data", "  fail  ERR_SOURCE_FETCH_FAILED  HTTP 503",
                     "sent (1 message, caption sent)", "not sent yet: doc"] {
            #expect(text.contains(line), "\(line)")
        }
    }

    @Test func theJSONCarriesTheSameFields() throws {
        let view = try view()
        let object = try JSONParser.parse(view.json)
        #expect(object["status"] == "idle")
        #expect(object["count"] == 4)
        #expect(object["attachments"]?.arrayValue?.compactMap { $0["fileId"]?.stringValue } == ["up", "doc"])
        #expect(object["failed"]?.arrayValue?.first?["error"]?["code"] == "ERR_SOURCE_FETCH_FAILED")
        #expect(object["receiver"] == ["id": "u1", "type": "user"])
        #expect(object["caption"] == "Trip" && object["sender"] == nil, "an absent field is left out")
        #expect(object["sent"] == [["muid": "dad9ad95-33cf-5628-b466-d61e4b08031c", "fileIds": ["up"]]])
        #expect(object["attachmentsByType"]?["video"] == [])
        #expect(object["rejected"] == [["fileId": "bad", "error": ["code": "ERR_FILE_DATA_EMPTY", "message": "the file has no data", "retryable": false]]])
    }

    @Test func attachmentsInTheJSONHaveTheMembersOfAnUploadedEvent() throws {
        let view = try view()
        let up: JSONValue = ["fileId": "up", "name": "up.png", "url": "https://cdn.test/up", "mimeType": "image/png",
                             "extension": "png", "size": 1000, "type": "image", "sha256": "sha-up"]
        let object = try JSONParser.parse(view.json)
        #expect(object["attachments"]?.arrayValue?.first == up)
        #expect(object["attachmentsByType"]?["image"] == [up])
        var sealed = view
        sealed.attachments[0].encryption = "aws:kms"
        #expect(try JSONParser.parse(sealed.json)["attachments"]?.arrayValue?.first?["encryption"] == "aws:kms")
    }

    @Test func theJSONIsIndentedWithSortedKeys() throws {
        let text = String(decoding: try view().json, as: UTF8.self)
        #expect(text.hasPrefix("{\n  \"attachments\": [\n    {\n      \"extension\": \"png\",\n      \"fileId\": \"up\","))
        let topLevel = text.split(separator: "\n").filter { $0.hasPrefix("  \"") }.map { $0.dropFirst(3).prefix { $0 != "\"" } }
        #expect(topLevel == topLevel.sorted())
        #expect(topLevel.count == 16)
    }

    @Test func theLatestSnapshotWinsAndATombstoneRemovesTheBatch() throws {
        var changelog = ChangelogBatches()
        changelog.take(key: "old", value: Self.snapshot(batchId: "old", updatedAt: 1_000), partition: 0, offset: 0)
        changelog.take(key: "gone", value: Self.snapshot(batchId: "gone", updatedAt: 2_000), partition: 0, offset: 1)
        changelog.take(key: "new", value: Self.snapshot(batchId: "new", updatedAt: 3_000), partition: 0, offset: 2)
        changelog.take(key: "old", value: Self.snapshot(batchId: "old", updatedAt: 4_000), partition: 0, offset: 3)
        changelog.take(key: "gone", value: nil, partition: 0, offset: 4)
        changelog.take(key: "broken", value: Data("{".utf8), partition: 0, offset: 5)
        let read = changelog.batches(configuration: EngineConfiguration())
        #expect(read.batches.map(\.batch.batchId) == ["old", "new"], "newest change first")
        #expect(read.batches.first?.offset == 3)
        #expect(read.unreadable.map(\.key) == ["broken"])
    }

    @Test func aListingFiltersAndPages() throws {
        var changelog = ChangelogBatches()
        for index in 0..<5 {
            let snapshot = Self.snapshot(batchId: "b\(index)", updatedAt: Int64(index) * 1000,
                                         receiver: index.isMultiple(of: 2) ? "even" : "odd")
            changelog.take(key: "b\(index)", value: snapshot, partition: 0, offset: Int64(index))
        }
        let views = changelog.batches(configuration: EngineConfiguration()).batches.map { BatchView($0.batch) }
        let first = try BatchListing(receiver: "even", state: "idle", limit: "2", page: nil).page(of: views)
        #expect(first.views.map(\.batchId) == ["b4", "b2"])
        #expect(first.nextPage == 2)
        let second = try BatchListing(receiver: "even", state: nil, limit: "2", page: "2").page(of: views)
        #expect(second.views.map(\.batchId) == ["b0"])
        #expect(second.nextPage == nil)
        #expect(try BatchListing(receiver: nil, state: "in-progress", limit: nil, page: nil).page(of: views).views.isEmpty)
        #expect(throws: RecordInputError("--state must be idle or in-progress")) {
            try BatchListing(receiver: nil, state: "done", limit: nil, page: nil)
        }
    }
}
