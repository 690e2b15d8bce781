import Foundation
import UploadEngine

/// The demo's job record, written as a backend would write it.
enum DemoJob {
    static func record(batchId: String, files: [FileItem]) -> Data {
        let entries: [[String: Any]] = files.map { item in
            var entry: [String: Any] = ["fileId": item.fileId, "name": item.name]
            if let mime = item.mimeType { entry["mimeType"] = mime }
            if let size = item.declaredSize { entry["size"] = size }
            switch item.source {
            case .data(let bytes): entry["source"] = ["data": bytes.base64EncodedString()]
            case .path(let path): entry["source"] = ["path": path]
            case .url(let url): entry["source"] = ["url": url]
            default: break
            }
            return entry
        }
        let job: [String: Any] = [
            "kind": "upload", "requestId": "req-7f3", "batchId": batchId,
            "receiver": ["id": "cometchat-uid-1", "type": "user"], "sender": "cometchat-uid-7", "concurrency": 3,
            "files": entries, "message": ["send": "auto", "caption": "Trip photos", "metadata": ["trip": 42]],
        ]
        return try! JSONSerialization.data(withJSONObject: job, options: [.sortedKeys])
    }
}
