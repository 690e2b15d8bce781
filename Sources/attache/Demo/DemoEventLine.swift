import Foundation

/// Turns a CloudEvent from the events topic into one line of the demo's running commentary.
enum DemoEventLine {
    static func line(for json: [String: Any]) -> String? {
        guard let type = json["type"] as? String, let data = json["data"] as? [String: Any] else { return nil }
        let file = ((data["fileId"] as? String) ?? "").padding(toLength: 12, withPad: " ", startingAt: 0)
        let error = data["error"] as? [String: Any]
        let code = error?["code"] as? String ?? ""
        let message = error?["message"] as? String ?? ""
        switch type {
        case "attache.file.progress":
            let percent = data["percent"] as? Int ?? 0
            let bar = String(repeating: "█", count: percent / 5) + String(repeating: "·", count: 20 - percent / 5)
            return "\(file) \(bar) \(String(format: "%3d", percent))%  \(size(data["loaded"])) of \(size(data["total"]))"
        case "attache.file.uploaded":
            let attachment = data["attachment"] as? [String: Any] ?? [:]
            let digest = (attachment["sha256"] as? String ?? "").prefix(12)
            return "\(file) uploaded   \(attachment["type"] as? String ?? ""), \(size(attachment["size"])), sha256 \(digest)…"
        case "attache.file.rejected":
            return "\(file) rejected   \(code): \(message)"
        case "attache.file.failed":
            let retrying = data["willRetry"] as? Bool == true ? ", retrying" : ""
            return "\(file) failed     \(code) on attempt \(data["attempt"] as? Int ?? 0)\(retrying): \(message)"
        case "attache.file.removed":
            return "\(file) removed"
        case "attache.batch.completed":
            let result = data["result"] as? [String: Any] ?? [:]
            let count = { (key: String) in (result[key] as? [Any])?.count ?? 0 }
            return "batch \(data["batchId"] as? String ?? "") drained: \(count("successful")) uploaded, \(count("rejected")) rejected, \(count("failed")) failed"
        case "attache.message.sent":
            let files = (data["fileIds"] as? [String] ?? []).joined(separator: ", ")
            let id = (data["response"] as? [String: Any])?["id"] as? String ?? "-"
            return "message    \(data["messageType"] as? String ?? "") with \(files) sent (id \(id), muid \((data["muid"] as? String ?? "").prefix(8))…)"
        case "attache.message.failed":
            return "message    failed on attempt \(data["attempt"] as? Int ?? 0): \(code) \(message)"
        case "attache.job.invalid":
            return "job invalid: \(data["reason"] as? String ?? "")"
        default:
            return nil
        }
    }

    static func size(_ value: Any?) -> String {
        let bytes = Int64(value as? Int ?? 0)
        return bytes >= 1024 * 1024 ? String(format: "%.1f MiB", Double(bytes) / 1_048_576) : "\(bytes / 1024) KiB"
    }
}
