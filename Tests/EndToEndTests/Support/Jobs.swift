import Foundation

/// Builders for job and control records as backends write them.
enum Jobs {
    static func json(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    static func upload(batchId: String, files: [[String: Any]], send: String = "auto", caption: String? = nil,
                       requestId: String? = nil, tenant: String? = nil) -> String {
        var message: [String: Any] = ["send": send, "metadata": ["suite": "e2e"]]
        if let caption { message["caption"] = caption }
        var job: [String: Any] = ["kind": "upload", "batchId": batchId, "receiver": ["id": "uid-1", "type": "user"],
                                  "sender": "uid-7", "files": files, "message": message]
        if let requestId { job["requestId"] = requestId }
        if let tenant { job["tenant"] = tenant }
        return json(job)
    }

    static func inline(_ fileId: String, name: String, mimeType: String, bytes: Data) -> [String: Any] {
        ["fileId": fileId, "name": name, "mimeType": mimeType, "source": ["data": bytes.base64EncodedString()]]
    }

    static func path(_ fileId: String, name: String, mimeType: String, path: String) -> [String: Any] {
        ["fileId": fileId, "name": name, "mimeType": mimeType, "source": ["path": path]]
    }

    static func control(_ kind: String, batchId: String, fileId: String? = nil) -> String {
        var control: [String: Any] = ["kind": kind, "batchId": batchId]
        if let fileId { control["fileId"] = fileId }
        return json(control)
    }

    /// Bytes that start with a real magic number, so they are what their type says.
    static func bytes(magic: [UInt8], size: Int, seed: Int) -> Data {
        var data = Data(magic)
        data.append(Data((0..<(size - magic.count)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed) }))
        return data
    }

    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00]
    static let pdf: [UInt8] = Array("%PDF-1.7\n".utf8)
}
