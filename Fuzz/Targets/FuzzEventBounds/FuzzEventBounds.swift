import BoundsProbe
import Foundation
import FuzzSupport
import Records
import UploadEngine
import Worker

/// Builds job records from the fuzzer's bytes (``FuzzedJob``) — strings up to their byte limits and just past them,
/// up to `limits.filesPerJob` files and one more, trace headers of every shape, keys that match the batch id or not —
/// and runs them through the decoder and the engine as the worker would (`EncodedSizeProbe`): every event record
/// (with its key and headers) and every snapshot an accepted record leads to, and the event of a refused one, must
/// fit `events.maxBytes` at the default limits (DESIGN §2.1 "Bounds").
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(UnsafeBufferPointer(start: data, count: size))
    // One job, or two of one batch (more rejected files than a result lists).
    var specs = [FuzzedJob.make(from: &input)]
    if input.next() % 2 == 1 {
        var second = FuzzedJob.make(from: &input)
        second.batchId = specs[0].batchId
        second.key = specs[0].key
        specs.append(second)
    }
    let report = probe.run(specs, answers: FuzzedJob.answers(from: &input))
    for measure in report.measures {
        check(measure.bytes <= CloudEventEncoder.defaultMaxBytes, "\(measure) does not fit events.maxBytes")
    }
    return 0
}

private let probe = EncodedSizeProbe()
