import EmbeddedHTTP
import S3
import Foundation
import Glibc
import WireFormat

/// Streams one PUT body into a partial file while hashing it, then moves it into place as the object.
///
/// Lives on the connection's thread. Nothing of the body is held in memory beyond the chunk being written.
final class ObjectUpload: HTTPBodyReceiver {
    private let storage: ObjectStorage
    private let key: ObjectKey
    private let contentType: String?
    private let expectedChecksum: String?
    private let maxSize: Int64?
    private let partialPath: String
    private var descriptor: Int32
    private let digest = SHA256Hasher()
    private var size: Int64 = 0
    private var writeFailed = false
    private var tooLarge = false
    private let traceparent: String?

    /// Opens a partial file for `key`; nil when it cannot be created.
    init?(storage: ObjectStorage, key: ObjectKey, head: HTTPRequestHead, maxSize: Int64?) {
        guard let partial = storage.createPartial() else { return nil }
        self.storage = storage
        self.key = key
        self.contentType = head.header("content-type")
        self.expectedChecksum = head.header("x-amz-checksum-sha256")
        self.traceparent = head.header("traceparent")
        self.maxSize = maxSize
        self.partialPath = partial.path
        self.descriptor = partial.descriptor
    }

    func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPBodyDisposition {
        guard !writeFailed, !tooLarge else { return .proceed }
        size += Int64(chunk.count)
        if let maxSize, size > maxSize {
            tooLarge = true
            discardPartial()
            return .proceed
        }
        digest.update(chunk)
        var offset = 0
        while offset < chunk.count {
            let written = write(descriptor, chunk.baseAddress! + offset, chunk.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                writeFailed = true
                discardPartial()
                return .proceed
            }
            offset += written
        }
        return .proceed
    }

    func finish() -> HTTPRequestCompletion {
        .respond(complete())
    }

    func abandon() {
        discardPartial()
        storage.record(method: "PUT", path: key.requestPath, status: nil, traceparent: traceparent)
    }

    private func complete() -> ServerResponse {
        let response = outcome()
        storage.record(method: "PUT", path: key.requestPath, status: response.status, traceparent: traceparent)
        return response
    }

    private func outcome() -> ServerResponse {
        if tooLarge {
            return StorageErrorResponse.make(400, code: "EntityTooLarge",
                                             message: "Your proposed upload exceeds the maximum allowed size")
        }
        if writeFailed || close(descriptor) != 0 {
            descriptor = -1
            discardPartial()
            return StorageErrorResponse.make(500, code: "InternalError", message: "The object could not be written")
        }
        descriptor = -1
        let sha256 = digest.finalizeHex()
        if let expectedChecksum, expectedChecksum != Self.base64(hex: sha256) {
            discardPartial()
            return StorageErrorResponse.make(400, code: "BadDigest",
                                             message: "The SHA256 you specified did not match the calculated checksum")
        }
        guard storage.commit(partial: partialPath, as: key, size: size, sha256: sha256, contentType: contentType)
        else {
            discardPartial()
            return StorageErrorResponse.make(409, code: "ObjectKeyConflict",
                                             message: "The key conflicts with an existing key's path")
        }
        return ServerResponse(status: 200, headers: [HTTPHeader("ETag", "\"\(sha256)\"")])
    }

    private func discardPartial() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        unlink(partialPath)
    }

    private static func base64(hex: String) -> String {
        var bytes: [UInt8] = []
        var iterator = hex.utf8.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            bytes.append(UInt8(hexDigit(high) << 4 | hexDigit(low)))
        }
        return Data(bytes).base64EncodedString()
    }

    private static func hexDigit(_ character: UInt8) -> UInt8 {
        character >= UInt8(ascii: "a") ? character - UInt8(ascii: "a") + 10 : character - UInt8(ascii: "0")
    }
}
