import Foundation

/// S3's checksum header form: `x-amz-checksum-sha256` carries the base64 of the raw 32-byte digest.
public enum S3Checksum {
    /// The header S3 verifies an upload's bytes against.
    public static let sha256Header = "x-amz-checksum-sha256"
    /// The header that names the checksum algorithm of a request carrying one.
    public static let algorithmHeader = "x-amz-sdk-checksum-algorithm"

    /// The base64 form of a hex SHA-256 digest, or nil when `hex` is not 64 hex digits.
    public static func base64(sha256Hex hex: String) -> String? {
        guard hex.utf8.count == 2 * SigV4Digest.byteCount, let bytes = SigV4Digest.bytes(fromHex: hex) else {
            return nil
        }
        return base64(sha256Digest: bytes)
    }

    /// The base64 form of a raw SHA-256 digest.
    public static func base64(sha256Digest digest: [UInt8]) -> String {
        Data(digest).base64EncodedString()
    }
}
