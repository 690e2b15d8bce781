import Foundation
import WireFormat

/// Builders for job and control records as backends write them.
enum Jobs {
    static func json(_ object: [String: JSONValue]) -> String {
        var json = JSONWriter()
        json.value(.object(object))
        return String(decoding: json.bytes, as: UTF8.self)
    }

    static func upload(batchId: String, files: [JSONValue], send: String = "auto", caption: String? = nil,
                       requestId: String? = nil, tenant: String? = nil) -> String {
        var message: [String: JSONValue] = ["send": .string(send), "metadata": ["suite": "e2e"]]
        if let caption { message["caption"] = .string(caption) }
        var job: [String: JSONValue] = ["kind": "upload", "batchId": .string(batchId), "receiver": ["id": "uid-1", "type": "user"],
                                        "sender": "uid-7", "files": .array(files), "message": .object(message)]
        if let requestId { job["requestId"] = .string(requestId) }
        if let tenant { job["tenant"] = .string(tenant) }
        return json(job)
    }

    static func inline(_ fileId: String, name: String, mimeType: String, bytes: Data) -> JSONValue {
        ["fileId": .string(fileId), "name": .string(name), "mimeType": .string(mimeType), "source": ["data": .string(bytes.base64EncodedString())]]
    }

    static func path(_ fileId: String, name: String, mimeType: String, path: String) -> JSONValue {
        ["fileId": .string(fileId), "name": .string(name), "mimeType": .string(mimeType), "source": ["path": .string(path)]]
    }

    static func control(_ kind: String, batchId: String, fileId: String? = nil) -> String {
        var control: [String: JSONValue] = ["kind": .string(kind), "batchId": .string(batchId)]
        if let fileId { control["fileId"] = .string(fileId) }
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
