import Foundation
import WireFormat

/// Turns a CloudEvent from the events topic into one line of the demo's running commentary.
enum DemoEventLine {
    static func line(for event: JSONValue) -> String? {
        guard let type = event["type"]?.stringValue, let data = event["data"], data.objectValue != nil else { return nil }
        let file = (data["fileId"]?.stringValue ?? "").padding(toLength: 12, withPad: " ", startingAt: 0)
        let code = data["error"]?["code"]?.stringValue ?? ""
        let message = data["error"]?["message"]?.stringValue ?? ""
        switch type {
        case "attache.file.progress":
            let percent = Int(data["percent"]?.wholeNumber ?? 0)
            let bar = String(repeating: "█", count: percent / 5) + String(repeating: "·", count: 20 - percent / 5)
            return "\(file) \(bar) \(String(format: "%3d", percent))%  \(size(data["loaded"])) of \(size(data["total"]))"
        case "attache.file.uploaded":
            let attachment = data["attachment"]
            let digest = (attachment?["sha256"]?.stringValue ?? "").prefix(12)
            return "\(file) uploaded   \(attachment?["type"]?.stringValue ?? ""), \(size(attachment?["size"])), sha256 \(digest)…"
        case "attache.file.rejected":
            return "\(file) rejected   \(code): \(message)"
        case "attache.file.failed":
            let retrying = data["willRetry"]?.boolValue == true ? ", retrying" : ""
            return "\(file) failed     \(code) on attempt \(data["attempt"]?.wholeNumber ?? 0)\(retrying): \(message)"
        case "attache.file.removed":
            return "\(file) removed"
        case "attache.batch.completed":
            let count = { (key: String) in data["result"]?[key]?.arrayValue?.count ?? 0 }
            return "batch \(data["batchId"]?.stringValue ?? "") drained: \(count("successful")) uploaded, \(count("rejected")) rejected, \(count("failed")) failed"
        case "attache.message.sent":
            let files = (data["fileIds"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ", ")
            let id = data["response"]?["id"]?.stringValue ?? "-"
            return "message    \(data["messageType"]?.stringValue ?? "") with \(files) sent (id \(id), muid \((data["muid"]?.stringValue ?? "").prefix(8))…)"
        case "attache.message.failed":
            return "message    failed on attempt \(data["attempt"]?.wholeNumber ?? 0): \(code) \(message)"
        case "attache.job.invalid":
            return "job invalid: \(data["reason"]?.stringValue ?? "")"
        default:
            return nil
        }
    }

    static func size(_ value: JSONValue?) -> String {
        let bytes = value?.wholeNumber ?? 0
        return bytes >= 1024 * 1024 ? String(format: "%.1f MiB", Double(bytes) / 1_048_576) : "\(bytes / 1024) KiB"
    }
}
