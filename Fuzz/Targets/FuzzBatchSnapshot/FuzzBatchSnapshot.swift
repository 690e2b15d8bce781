import FuzzSupport
import UploadEngine

/// Feeds arbitrary bytes to the snapshot decoder, as a restore reads the changelog (a topic other processes can
/// write). Whatever decodes must encode again within the bound and decode to the same batch: same result, files,
/// sends and counters.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let configuration = EngineConfiguration()
    guard let restored = try? BatchSnapshot.decode(input, configuration: configuration) else { return 0 }
    let batch = restored.batch
    guard let bytes = BatchSnapshot.encode(batch, writerGeneration: restored.writerGeneration, maxBytes: 64 << 20) else {
        fatalError("a decoded snapshot could not be encoded again")
    }
    let again: UploadBatch
    do {
        again = try BatchSnapshot.decode(bytes, configuration: configuration).batch
    } catch {
        fatalError("the encoder's output does not decode: \(error)")
    }
    check(again.result == batch.result, "a round trip changed the result")
    check(again.count == batch.count && again.remainingCapacity == batch.remainingCapacity, "a round trip changed the counts")
    check(again.sentMessages == batch.sentMessages && again.captionSent == batch.captionSent, "a round trip changed the sends")
    check(again.eventSequence == batch.eventSequence && again.appliedThrough == batch.appliedThrough, "a round trip changed the counters")
    return 0
}
