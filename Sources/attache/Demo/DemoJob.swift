import Foundation
import UploadEngine
import WireFormat

/// The demo's job record, written as a backend would write it.
enum DemoJob {
    static func record(batchId: String, files: [FileItem]) -> Data {
        let entries: [JSONValue] = files.map { item in
            var entry: [String: JSONValue] = ["fileId": .string(item.fileId), "name": .string(item.name)]
            if let mime = item.mimeType { entry["mimeType"] = .string(mime) }
            if let size = item.declaredSize { entry["size"] = .int(size) }
            switch item.source {
            case .data(let bytes): entry["source"] = .object(["data": .string(bytes.base64EncodedString())])
            case .path(let path): entry["source"] = .object(["path": .string(path)])
            case .url(let url): entry["source"] = .object(["url": .string(url)])
            default: break
            }
            return .object(entry)
        }
        let job: JSONValue = .object([
            "kind": "upload", "requestId": "req-7f3", "batchId": .string(batchId),
            "receiver": .object(["id": "cometchat-uid-1", "type": "user"]), "sender": "cometchat-uid-7", "concurrency": .int(3),
            "files": .array(entries),
            "message": .object(["send": "auto", "caption": "Trip photos", "metadata": .object(["trip": .int(42)])]),
        ])
        var json = JSONWriter()
        json.value(job)
        return json.data()
    }
}
