import Foundation
import OperatorTools
import Records
import UploadEngine
import WireFormat

/// CloudEvents and jobs as workers and backends write them, built for the model's tests.
enum EventRecords {
    /// Milliseconds since 1970 of the tests' made-up clock's start.
    static let start: Int64 = 1_800_000_000_000

    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    static func time(_ milliseconds: Int64) -> String {
        RFC3339Instant.format(date(milliseconds))
    }

    /// One event; `at` is milliseconds after ``start``.
    static func event(_ type: String, batch: String, at offset: Int64 = 0, id: String? = nil, source: String = "attache/worker-1",
                      data: String) -> WatchedEvent {
        let eventId = id ?? UUID().uuidString
        let json = #"{"specversion":"1.0","id":"\#(eventId)","source":"\#(source)","type":"attache.\#(type)","subject":"\#(batch)","time":"\#(time(start + offset))","sequence":"1","data":{"batchId":"\#(batch)","requestId":"r",\#(data)}}"#
        return WatchedEvent(json: Array(json.utf8))!
    }

    static func progress(_ batch: String, _ file: String, loaded: Int, total: Int, at offset: Int64 = 0, source: String = "attache/worker-1") -> WatchedEvent {
        event("file.progress", batch: batch, at: offset, source: source,
              data: #""fileId":"\#(file)","loaded":\#(loaded),"total":\#(total),"percent":\#(total == 0 ? 0 : loaded * 100 / total)"#)
    }

    static func uploaded(_ batch: String, _ file: String, size: Int, at offset: Int64 = 0, id: String? = nil, source: String = "attache/worker-1") -> WatchedEvent {
        event("file.uploaded", batch: batch, at: offset, id: id, source: source,
              data: #""fileId":"\#(file)","attachment":{"fileId":"\#(file)","name":"\#(file).jpg","url":"http://store/\#(file)","mimeType":"image/jpeg","extension":"jpg","size":\#(size),"type":"image","sha256":"ab"}"#)
    }

    static func rejected(_ batch: String, _ file: String, code: String, at offset: Int64 = 0) -> WatchedEvent {
        event("file.rejected", batch: batch, at: offset,
              data: #""fileId":"\#(file)","error":{"code":"\#(code)","message":"no","retryable":false}"#)
    }

    static func failed(_ batch: String, _ file: String, code: String, attempt: Int, willRetry: Bool, at offset: Int64 = 0) -> WatchedEvent {
        event("file.failed", batch: batch, at: offset,
              data: #""fileId":"\#(file)","error":{"code":"\#(code)","message":"store said 503","retryable":true},"attempt":\#(attempt),"willRetry":\#(willRetry)"#)
    }

    static func completed(_ batch: String, successful: [String], failed: [String] = [], rejected: [String] = [], rejectedTotal: Int? = nil,
                          at offset: Int64 = 0) -> WatchedEvent {
        let ok = successful.map { #"{"fileId":"\#($0)","attachment":{"fileId":"\#($0)","name":"\#($0).jpg","url":"u","mimeType":"image/jpeg","extension":"jpg","size":10,"type":"image","sha256":"ab"}}"# }
        let bad = failed.map { #"{"fileId":"\#($0)","error":{"code":"ERR_S3_UPLOAD_FAILED","message":"m","retryable":true}}"# }
        let refused = rejected.map { #"{"fileId":"\#($0)","error":{"code":"ERR_FILE_SIZE_EXCEEDED","message":"m","retryable":false}}"# }
        return event("batch.completed", batch: batch, at: offset, data: #""result":{"batchId":"\#(batch)","successful":[\#(ok.joined(separator: ","))],"rejected":[\#(refused.joined(separator: ","))],"rejectedTotal":\#(rejectedTotal ?? rejected.count),"failed":[\#(bad.joined(separator: ","))]}"#)
    }

    static func job(_ batch: String, receiver: String = "uid-1", tenant: String? = nil,
                    files: [(id: String, name: String, size: Int64)]) -> JobCommand {
        .upload(UploadJob(requestId: "req-\(batch)", batchId: batch, receiver: Receiver(id: receiver, type: .user), sender: "uid-7",
                          parentMessageId: nil, tenant: tenant, concurrency: nil,
                          files: files.map { FileItem(fileId: $0.id, name: $0.name, declaredSize: $0.size, source: .url("https://x/\($0.name)")) },
                          message: MessageOptions()))
    }
}
