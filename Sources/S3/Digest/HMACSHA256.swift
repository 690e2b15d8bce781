internal import CCrypto
import Foundation

/// HMAC-SHA256 (RFC 2104) under one key, with the key's two padded blocks hashed once.
///
/// libcrypto's one-shot `HMAC` looks the MAC and the digest up in its provider store, and keys a fresh MAC
/// context, at every call: with the plain SHA-256 of the canonical request, six look-ups and nineteen libcrypto
/// allocations per presigned URL. Under a kept key a message costs two SHA-256 finishes from copied states.
///
/// `@unchecked Sendable`: the two keyed states are written only by `init` and afterwards only copied from, which
/// reads them (and atomically counts references to their algorithm).
public final class HMACSHA256: @unchecked Sendable {
    /// SHA-256's block size: longer keys are hashed first, shorter ones padded with zeros to it.
    private static let blockSize = 64

    /// The states after `key ⊕ ipad` and after `key ⊕ opad`.
    private let inner: OpaquePointer
    private let outer: OpaquePointer

    /// Keys a MAC with `key`, of any length.
    public init(key: some ContiguousBytes) {
        var block = [UInt8](repeating: 0, count: Self.blockSize)
        key.withUnsafeBytes { key in
            if key.count > Self.blockSize {
                block.replaceSubrange(0..<SigV4Digest.byteCount, with: SigV4Digest.sha256(key))
            } else {
                block.replaceSubrange(0..<key.count, with: key)
            }
        }
        inner = Self.state(absorbing: block.map { $0 ^ 0x36 })
        outer = Self.state(absorbing: block.map { $0 ^ 0x5c })
    }

    deinit {
        EVP_MD_CTX_free(inner)
        EVP_MD_CTX_free(outer)
    }

    /// The MAC of `message`.
    public func authenticate(_ message: UnsafeRawBufferPointer) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("libcrypto cannot allocate a digest context") }
        defer { EVP_MD_CTX_free(context) }
        var digest = [UInt8](repeating: 0, count: SigV4Digest.byteCount)
        digest.withUnsafeMutableBytes { digest in
            Self.finish(copying: inner, into: context, message, output: digest)
            Self.finish(copying: outer, into: context, UnsafeRawBufferPointer(digest), output: digest)
        }
        return digest
    }

    /// The MAC of `message`, into `mac`.
    public func authenticate(_ message: UnsafeRawBufferPointer, into mac: inout SigV4Digest.Bytes) {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("libcrypto cannot allocate a digest context") }
        defer { EVP_MD_CTX_free(context) }
        mac.withUnsafeMutableBytes { output in
            Self.finish(copying: inner, into: context, message, output: output)
            Self.finish(copying: outer, into: context, UnsafeRawBufferPointer(output), output: output)
        }
    }

    /// The MAC of a string's UTF-8 bytes.
    public func authenticate(_ message: String) -> [UInt8] {
        var message = message
        return message.withUTF8 { authenticate(UnsafeRawBufferPointer($0)) }
    }

    private static func state(absorbing block: [UInt8]) -> OpaquePointer {
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, SigV4Digest.algorithm, nil) == 1,
            EVP_DigestUpdate(context, block, block.count) == 1
        else {
            preconditionFailure("libcrypto cannot initialise SHA-256")
        }
        return context
    }

    /// Continues from `state` in `context` with `bytes` and writes the digest to `output` (which may be `bytes`:
    /// they are absorbed before it is written).
    private static func finish(copying state: OpaquePointer, into context: OpaquePointer,
                               _ bytes: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer) {
        var length: UInt32 = 0
        let done = EVP_MD_CTX_copy_ex(context, state) == 1
            && (bytes.isEmpty || EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1)
            && EVP_DigestFinal_ex(context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length) == 1
        // Allocation or a broken provider are the only failures; signing cannot go on without it.
        precondition(done && length == UInt32(SigV4Digest.byteCount), "libcrypto HMAC-SHA256 failed")
    }
}
