import Foundation
import FuzzSupport
import Records
import UploadEngine
import WireFormat

/// Feeds arbitrary record values to `JobDecoder.decode`, which must answer every one (never trap), reject whatever is
/// not JSON, and only accept commands whose strings are within their ``RecordField`` limits and rules: a file whose
/// strings are not must come back malformed (rejected on its own), holding nothing over a limit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let value = Data(bytes: data, count: size)
    let decoder = JobDecoder(limits: UploadLimits())
    let isJSON = (try? JSONParser.parse(value)) != nil
    for key in [nil, "batch-from-key"] {
        let provenance = JobDecoder.Provenance(topic: "attache.jobs", partition: 3, offset: 42, key: key)
        guard case .success(let command) = decoder.decode(value, from: provenance) else { continue }
        check(isJSON, "a record that is not JSON was accepted")
        check(RecordField.batchId.problem(with: command.batchId) == nil, "accepted an invalid batchId")
        switch command {
        case .upload(let job):
            check(RecordField.requestId.problem(with: job.requestId) == nil, "accepted an invalid requestId")
            check(RecordField.receiverId.problem(with: job.receiver.id) == nil, "accepted an invalid receiver id")
            check(job.sender.map { RecordField.sender.problem(with: $0) == nil } ?? true, "accepted an invalid sender")
            check(job.parentMessageId.map { RecordField.parentMessageId.problem(with: $0) == nil } ?? true,
                  "accepted an invalid parentMessageId")
            check(job.concurrency.map { (1...1000).contains($0) } ?? true, "accepted concurrency out of range")
            for file in job.files { checkBounded(file) }
        case .retry(_, let fileId), .remove(_, let fileId):
            check(RecordField.fileId.problem(with: fileId) == nil, "accepted an invalid fileId")
        case .configure(_, let concurrency):
            check((1...1000).contains(concurrency), "accepted concurrency out of range")
        case .clear, .send:
            break
        }
    }
    return 0
}

/// A file is within every limit and rule, or malformed (or empty, which intake refuses first) with every string it
/// keeps within its limit.
private func checkBounded(_ file: FileItem) {
    for (field, text) in [(RecordField.fileId, file.fileId), (.name, file.name)] {
        check(text.utf8.count <= field.maxBytes, "kept a \(field.rawValue) over its limit")
    }
    check((file.mimeType?.utf8.count ?? 0) <= RecordField.mimeType.maxBytes, "kept a mimeType over its limit")
    switch file.source {
    case .malformed(let reason):
        check(reason.utf8.count <= 1024, "a malformed source's reason is unbounded")
        return
    case .url(let url):
        check(RecordField.url.problem(with: url) == nil, "accepted an invalid url")
    case .path(let path):
        check(RecordField.path.problem(with: path) == nil, "accepted an invalid path")
    case .data(let bytes) where bytes.isEmpty:
        return
    default:
        break
    }
    check(RecordField.fileId.problem(with: file.fileId) == nil, "accepted an invalid fileId")
    check(RecordField.name.problem(with: file.name) == nil, "accepted an invalid name")
    check(file.mimeType.map { RecordField.mimeType.problem(with: $0) == nil } ?? true, "accepted an invalid mimeType")
}
