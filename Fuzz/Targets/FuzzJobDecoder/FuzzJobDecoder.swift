import Foundation
import FuzzSupport
import UploadEngine
import WireFormat
import Worker

/// Feeds arbitrary record values to `JobDecoder.decode`, which must answer every one (never trap), reject whatever is
/// not JSON, and only accept commands whose identifiers and settings are within the wire contract.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let value = Data(bytes: data, count: size)
    let decoder = JobDecoder(limits: UploadLimits())
    let isJSON = (try? JSONParser.parse(value)) != nil
    for key in [nil, "batch-from-key"] {
        let provenance = JobDecoder.Provenance(topic: "attache.jobs", partition: 3, offset: 42, key: key)
        guard case .success(let command) = decoder.decode(value, from: provenance) else { continue }
        check(isJSON, "a record that is not JSON was accepted")
        check(UploadBatch.isValidIdentifier(command.batchId), "accepted an invalid batchId")
        switch command {
        case .upload(let job):
            check(UploadBatch.isValidIdentifier(job.requestId), "accepted an invalid requestId")
            check(job.concurrency.map { (1...1000).contains($0) } ?? true, "accepted concurrency out of range")
            check(!job.receiver.id.isEmpty, "accepted an empty receiver id")
        case .retry(_, let fileId), .remove(_, let fileId):
            check(UploadBatch.isValidIdentifier(fileId), "accepted an invalid fileId")
        case .configure(_, let concurrency):
            check((1...1000).contains(concurrency), "accepted concurrency out of range")
        case .clear, .send:
            break
        }
    }
    return 0
}
