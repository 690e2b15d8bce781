internal import CCrypto
import Foundation

/// SHA-256 and HMAC-SHA256 from libcrypto, the two primitives SigV4 is built from.
///
/// Both are one-shot calls on caller-owned buffers, so they are safe from any thread.
public enum SigV4Digest {
    /// Length in bytes of a SHA-256 digest.
    public static let byteCount = 32

    /// libcrypto's SHA-256, fetched once. Named by `EVP_sha256()`, OpenSSL 3 looks the algorithm up in its provider
    /// store again at every initialisation (a lock and a property query). Never freed: it lives as long as the
    /// process. `nonisolated(unsafe)`: set once, then only read, and libcrypto's algorithm objects are thread-safe.
    nonisolated(unsafe) static let algorithm: OpaquePointer = {
        guard let algorithm = EVP_MD_fetch(nil, "SHA256", nil) else { preconditionFailure("libcrypto has no SHA-256") }
        return algorithm
    }()

    /// The SHA-256 digest of `bytes`.
    public static func sha256(_ bytes: some ContiguousBytes) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let status = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, algorithm, nil)
            }
        }
        // libcrypto only fails here on allocation failure or a broken provider; signing cannot go on without it.
        precondition(status == 1 && length == UInt32(byteCount), "libcrypto SHA-256 failed")
        return digest
    }

    /// A digest's 32 bytes, held inline: signing a URL hashes twice, and neither digest needs to outlive it.
    public struct Bytes: Sendable {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

        public init() {}

        /// The bytes, read in place.
        public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
            try Swift.withUnsafeBytes(of: words, body)
        }

        /// The bytes, to be written in place.
        mutating func withUnsafeMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) throws -> Result) rethrows
            -> Result
        {
            try Swift.withUnsafeMutableBytes(of: &words, body)
        }
    }

    /// The SHA-256 digest of `bytes`, into `digest`.
    public static func sha256(_ bytes: UnsafeRawBufferPointer, into digest: inout Bytes) {
        var length: UInt32 = 0
        let status = digest.withUnsafeMutableBytes { output in
            EVP_Digest(bytes.baseAddress, bytes.count, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length,
                       algorithm, nil)
        }
        precondition(status == 1 && length == UInt32(byteCount), "libcrypto SHA-256 failed")
    }

    /// Appends the lower-case hexadecimal of `digest` to `text`.
    public static func appendHex(of digest: Bytes, to text: inout [UInt8]) {
        digest.withUnsafeBytes { bytes in
            for byte in bytes {
                text.append(digit(byte >> 4))
                text.append(digit(byte & 0x0f))
            }
        }
    }

    /// Lower-case hexadecimal of `digest`.
    public static func hex(of digest: Bytes) -> String {
        digest.withUnsafeBytes { bytes in
            String(unsafeUninitializedCapacity: 2 * byteCount) { out in
                for (index, byte) in bytes.enumerated() {
                    out[2 * index] = digit(byte >> 4)
                    out[2 * index + 1] = digit(byte & 0x0f)
                }
                return 2 * byteCount
            }
        }
    }

    /// The SHA-256 digest of a string's UTF-8 bytes (read in place when the string is contiguous, as native ones are).
    public static func sha256(_ text: String) -> [UInt8] {
        text.utf8.withContiguousStorageIfAvailable { sha256(UnsafeRawBufferPointer($0)) } ?? sha256(Array(text.utf8))
    }

    /// The HMAC-SHA256 of `message` under `key`; a key used for many messages is better kept as an ``HMACSHA256``.
    public static func hmacSHA256(key: some ContiguousBytes, message: some ContiguousBytes) -> [UInt8] {
        message.withUnsafeBytes { HMACSHA256(key: key).authenticate($0) }
    }

    /// The HMAC-SHA256 of a string's UTF-8 bytes under `key`.
    public static func hmacSHA256(key: some ContiguousBytes, message: String) -> [UInt8] {
        HMACSHA256(key: key).authenticate(message)
    }

    /// Lower-case hexadecimal of `bytes`, as SigV4 writes digests and signatures.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let bytes = Array(bytes)
        return String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (index, byte) in bytes.enumerated() {
                out[2 * index] = digit(byte >> 4)
                out[2 * index + 1] = digit(byte & 0x0f)
            }
            return bytes.count * 2
        }
    }

    private static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// The bytes a hexadecimal string spells, or nil when it is not an even-length run of hex digits.
    public static func bytes(fromHex hex: String) -> [UInt8]? {
        let utf8 = Array(hex.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
