@testable import Records
import Testing
import UploadEngine
@testable import Worker

/// Intake applies a fetched batch in lanes; a batch's records must all take the same one.
@Suite struct IntakeLaneTests {
    private static func upload(_ batchId: String) -> JobCommand {
        .upload(UploadJob(requestId: "r", batchId: batchId, receiver: Receiver(id: "u", type: .user), sender: nil,
                          parentMessageId: nil, concurrency: nil, files: [], message: MessageOptions()))
    }

    @Test func everyCommandOfABatchTakesTheSameLane() {
        for index in 0..<200 {
            let batchId = "batch-\(index)"
            let lanes: Set<Int> = [
                JobIntake.lane(of: .success(Self.upload(batchId)), among: 4),
                JobIntake.lane(of: .success(.remove(batchId: batchId, fileId: "f1")), among: 4),
                JobIntake.lane(of: .success(.retry(batchId: batchId, fileId: "f2")), among: 4),
                JobIntake.lane(of: .success(.send(batchId: batchId)), among: 4),
                JobIntake.lane(of: .success(.clear(batchId: batchId)), among: 4),
            ]
            #expect(lanes.count == 1, "batch \(batchId) was split over lanes \(lanes)")
            #expect(lanes.allSatisfy { (0..<4).contains($0) })
        }
    }

    @Test func batchesSpreadOverTheLanesAndInvalidRecordsTakeTheFirst() {
        let used = Set((0..<200).map { JobIntake.lane(of: .success(Self.upload("batch-\($0)")), among: 2) })
        #expect(used == [0, 1], "200 batches all landing in one lane would leave a core idle")
        #expect(JobIntake.lane(of: .failure(InvalidJob("not JSON")), among: 2) == 0)
    }
}
