import Foundation
import Testing
import UploadEngine
@testable import Worker

/// The cache's packed form of snapshots: exactly the bytes that went in come back, whatever they are, and a real
/// snapshot takes well under its JSON's size.
@Suite struct SnapshotPackingTests {
    private static func roundTrip(_ bytes: Data) -> (packed: Int, back: Data) {
        var packed: [UInt8] = []
        let count = SnapshotPacking.pack(bytes, into: &packed)
        return (count, SnapshotPacking.unpack(packed[...]))
    }

    /// The batch an intake job refused at validation leaves behind: one file rejected for empty data.
    private static func refusedBatch() -> UploadBatch {
        var batch = UploadBatch(context: BatchContext(batchId: "i-intake-1-1-4711", receiver: Receiver(id: "u", type: .user)),
                                configuration: EngineConfiguration(), options: MessageOptions(send: .none))
        var item = FileItem(fileId: "f1", name: "a.txt", mimeType: "text/plain", source: .data(Data()))
        item.origin = RecordOrigin(partition: 3, offset: 4711, index: 0)
        _ = batch.add([item], requestId: "attache.jobs/3/4711", now: Date(timeIntervalSince1970: 1_800_000_000))
        batch.appliedThrough = 4711
        return batch
    }

    @Test func aRefusedFilesSnapshotComesBackExactlyInUnderHalfItsBytes() throws {
        let snapshot = Data(try #require(BatchSnapshot.encode(Self.refusedBatch(), writerGeneration: 4, maxBytes: 1 << 20)))
        let (packed, back) = Self.roundTrip(snapshot)
        #expect(back == snapshot)
        #expect(packed * 2 < snapshot.count, "\(packed) bytes packed for \(snapshot.count)")
        #expect(try BatchSnapshot.decode(back, configuration: EngineConfiguration()).batch.count == 1)
    }

    @Test(arguments: [
        "",
        "{\"v\":1",
        "\u{0}\u{1}\u{1E}\u{1F}\u{1F}",
        "{\"name\":\"falsetrue\\\"ERR_x\",\"slot\":",
        ",\"message\":{\"send\":,\"message\":,\"m",
        "ÿ\u{7F}\"rejected\"\"rejecte",
    ])
    func anyBytesComeBackAsTheyWentIn(text: String) {
        let bytes = Data(text.utf8)
        #expect(Self.roundTrip(bytes).back == bytes)
    }

    @Test func everyByteValueInAnyOrderComesBackAsItWentIn() {
        var generator = SystemRandomNumberGenerator()
        for length in [1, 2, 3, 17, 300, 4096] {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            #expect(Self.roundTrip(bytes).back == bytes, "\(length) random bytes")
        }
        let tokensBackToBack = Data(SnapshotPacking.tokens.joined())
        let (packed, back) = Self.roundTrip(tokensBackToBack)
        #expect(back == tokensBackToBack)
        #expect(packed <= 2 * SnapshotPacking.tokens.count, "every name packs into its code")
    }

    @Test func aCodeCutShortUnpacksToWhatItHoldsWithoutReadingPastTheEnd() {
        #expect(SnapshotPacking.unpack([0x00][...]).isEmpty)
        #expect(SnapshotPacking.unpack([0x1F][...]).isEmpty)
        #expect(SnapshotPacking.unpack([0x1F, 0xFF][...]).isEmpty, "an index past the table stands for nothing")
    }
}
