import Foundation
@testable import Records
import Testing
import UploadEngine
@testable import Worker

/// DESIGN §2.1 "A job's record key is its batchId": a job or control that names a `batchId` and has no key, or a
/// different one, is re-keyed rather than applied where it is; one that names none is applied where it is (its batch
/// id is its key, or is made from its position).
@Suite struct RekeyDecisionTests {
    private func needsRekey(_ record: String, key: String?) throws -> Bool {
        try JobDecoder(limits: UploadLimits()).decode(Data(record.utf8), headers: [], from: JobDecoder.Provenance(
            topic: "attache.jobs", partition: 1, offset: 3, key: key)).get().needsRekey
    }

    private static let job = #"{"batchId": "trip-42", "receiver": {"id": "u1", "type": "user"}, "files": []}"#
    private static let jobWithoutBatchId = #"{"receiver": {"id": "u1", "type": "user"}, "files": []}"#

    @Test(arguments: [
        (job, "trip-42", false),
        (job, "trip-43", true),
        (job, nil, true),
        (job, "", true),
        (jobWithoutBatchId, "trip-42", false),
        (jobWithoutBatchId, nil, false),
        (#"{"kind": "retry", "batchId": "trip-42", "fileId": "f1"}"#, "another", true),
        (#"{"kind": "send", "batchId": "trip-42"}"#, nil, true),
        (#"{"kind": "clear"}"#, "trip-42", false),
    ] as [(String, String?, Bool)])
    func aRecordIsReKeyedExactlyWhenItNamesABatchIdItsKeyIsNot(record: String, key: String?, expected: Bool) throws {
        #expect(try needsRekey(record, key: key) == expected)
    }

    @Test func keysAreComparedAsBytesNotAsEquivalentText() throws {
        // "é" precomposed and decomposed: equal Swift strings, different bytes, so different partitions.
        let record = #"{"batchId": "caf\u00e9", "receiver": {"id": "u1", "type": "user"}, "files": []}"#
        #expect(try needsRekey(record, key: "cafe\u{301}"))
        #expect(try !needsRekey(record, key: "caf\u{e9}"))
    }
}
