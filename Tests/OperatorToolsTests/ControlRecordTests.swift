import Foundation
import OperatorTools
import Records
import Testing
import UploadEngine
import WireFormat

/// `attache control`: the record a worker decodes into the control asked for, and clear refusals before anything
/// is produced.
@Suite struct ControlRecordTests {
    private func decoded(_ control: ControlRecord) throws -> JobCommand {
        let decoder = JobDecoder(limits: UploadLimits())
        let provenance = JobDecoder.Provenance(topic: "attache.jobs", partition: 0, offset: 7, key: control.batchId)
        return try decoder.decode(control.value, from: provenance).get()
    }

    @Test func eachKindDecodesAsTheWorkerReadsIt() throws {
        #expect(try decoded(ControlRecord(kind: "retry", batchId: "b1", fileId: "f1", concurrency: nil)) == .retry(batchId: "b1", fileId: "f1"))
        #expect(try decoded(ControlRecord(kind: "remove", batchId: "b1", fileId: "f2", concurrency: nil)) == .remove(batchId: "b1", fileId: "f2"))
        #expect(try decoded(ControlRecord(kind: "clear", batchId: "b1", fileId: nil, concurrency: nil)) == .clear(batchId: "b1"))
        #expect(try decoded(ControlRecord(kind: "send", batchId: "b1", fileId: nil, concurrency: nil)) == .send(batchId: "b1"))
        #expect(try decoded(ControlRecord(kind: "configure", batchId: "b1", fileId: nil, concurrency: "4")) == .configure(batchId: "b1", concurrency: 4))
    }

    @Test func theKeyIsTheBatchId() throws {
        let control = try ControlRecord(kind: "send", batchId: "trip-42", fileId: nil, concurrency: nil)
        #expect(control.key == Array("trip-42".utf8))
        #expect(String(decoding: control.value, as: UTF8.self) == #"{"kind":"send","batchId":"trip-42"}"#)
    }

    @Test(arguments: [
        ("retry", nil, "f1", nil, "retry needs --batch ID"),
        ("retry", "b", nil, nil, "retry needs --file ID"),
        ("remove", "b", nil, nil, "remove needs --file ID"),
        ("configure", "b", nil, nil, "configure needs --concurrency N"),
        ("configure", "b", nil, "0", "--concurrency must be a whole number from 1 to 1000"),
        ("configure", "b", nil, "many", "--concurrency must be a whole number from 1 to 1000"),
        ("clear", "b", "f1", nil, "clear takes no --file"),
        ("send", "b", nil, "2", "send takes no --concurrency"),
        ("resend", "b", nil, nil, "unknown control 'resend' (retry, remove, clear, send or configure)"),
        ("send", "", nil, nil, "--batch must be 1–128 bytes of printable characters, not blank"),
    ] as [(String, String?, String?, String?, String)])
    func aBadCommandLineIsRefusedSayingWhy(kind: String, batch: String?, file: String?, concurrency: String?, message: String) {
        #expect(throws: RecordInputError(message)) {
            try ControlRecord(kind: kind, batchId: batch, fileId: file, concurrency: concurrency)
        }
    }
}
