import Foundation
import Synchronization
import WireFormat

/// AWS Signature Version 4 for one key, region and service: builds the canonical request, the string to sign
/// and the signature, and from them presigned URLs (`presign`) and `Authorization` headers (`authorize`).
///
/// A value type: equal when its inputs are; safe to share between tasks. Copies share one memo of the day's
/// signing key.
public struct SigV4Signer: Sendable, Hashable {
    /// The only algorithm SigV4 defines over HMAC-SHA256.
    public static let algorithm = "AWS4-HMAC-SHA256"
    /// The longest a presigned URL may live: 7 days, S3's limit for `X-Amz-Expires`.
    public static let maximumPresignLifetime = 604_800

    /// The key that signs.
    public var credentials: SigV4Credentials
    /// The region of the credential scope, e.g. `us-east-1`.
    public var region: String
    /// The service of the credential scope, e.g. `s3`.
    public var service: String
    /// The last signing key derived, with the inputs it was derived from.
    private let keys = SigningKeys()
    /// The shapes of the presigned URLs made lately.
    let presignShapes = SigV4PresignShapes()

    /// A signer for one key, region and service.
    public init(credentials: SigV4Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// `20130524/us-east-1/s3/aws4_request`: the scope a signature is valid for.
    public func credentialScope(_ time: SigV4Timestamp) -> String {
        Self.joined([time.dateStamp, region, service, "aws4_request"], separator: "/")
    }

    /// The canonical request of `request` with `query` in place of its own query items.
    public func canonicalRequest(_ request: SigV4Request, query: [SigV4QueryItem], headers: [HTTPHeader]) -> String {
        Self.canonicalRequest(request, encodedPath: request.encodedPath, canonicalQuery: Self.canonicalQuery(query),
                              headers: Self.canonicalHeaders(headers))
    }

    /// The canonical request from parts already in canonical form, written into one string. Signing is per file
    /// in `s3` mode, so its allocations count.
    static func canonicalRequest(_ request: SigV4Request, encodedPath: String, canonicalQuery: String,
                                 headers: (block: String, signedHeaders: String)) -> String {
        let method = request.method.uppercased()
        let parts = [method, encodedPath, canonicalQuery, headers.block, headers.signedHeaders, request.payloadHash]
        return Self.lines(parts)
    }

    /// The string to sign for a canonical request made at `time`.
    public func stringToSign(canonicalRequest: String, at time: SigV4Timestamp) -> String {
        Self.stringToSign(canonicalRequest: canonicalRequest, at: time, scope: credentialScope(time))
    }

    /// The string to sign, with the credential scope already made (a presigned URL carries it too).
    static func stringToSign(canonicalRequest: String, at time: SigV4Timestamp, scope: String) -> String {
        lines([algorithm, time.amzDate, scope, SigV4Digest.hex(SigV4Digest.sha256(canonicalRequest))])
    }

    /// `parts` joined by newlines into a string of exactly their size.
    private static func lines(_ parts: [String]) -> String {
        joined(parts, separator: "\n")
    }

    /// `parts` joined by a one-byte separator, written into one allocation.
    private static func joined(_ parts: [String], separator: Unicode.Scalar) -> String {
        ascii(capacity: parts.reduce(parts.count) { $0 + $1.utf8.count }) { text in
            for (index, part) in parts.enumerated() {
                if index > 0 { text.append(UInt8(separator.value)) }
                text.append(contentsOf: part.utf8)
            }
        }
    }

    /// The text `write` puts together as bytes. Signing is per file in `s3` mode, and appending to a `String` piece
    /// by piece cost several times what appending the same bytes to an array does.
    static func ascii(capacity: Int, _ write: (inout [UInt8]) -> Void) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(capacity)
        write(&bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The day's signing key: HMAC chain of date, region, service and `aws4_request` from `AWS4` + secret. Derived
    /// once a day (and again when the inputs change): four HMACs per presigned URL were a tenth of a small upload's
    /// CPU in `s3` mode.
    public func signingKey(at time: SigV4Timestamp) -> [UInt8] {
        keyed(at: time).key
    }

    /// The day's signing key, and a MAC keyed with it.
    func keyed(at time: SigV4Timestamp) -> SigningKeys.Keyed {
        keys.keyed(for: signingScope(time)) { deriveSigningKey(at: time) }
    }

    /// Everything a signature made at `time` depends on besides the request.
    func signingScope(_ time: SigV4Timestamp) -> SigningKeys.Scope {
        SigningKeys.Scope(dateStamp: time.dateStamp, credentials: credentials, region: region, service: service)
    }

    private func deriveSigningKey(at time: SigV4Timestamp) -> [UInt8] {
        let dateKey = SigV4Digest.hmacSHA256(key: Array(("AWS4" + credentials.secretAccessKey).utf8), message: time.dateStamp)
        let regionKey = SigV4Digest.hmacSHA256(key: dateKey, message: region)
        let serviceKey = SigV4Digest.hmacSHA256(key: regionKey, message: service)
        return SigV4Digest.hmacSHA256(key: serviceKey, message: "aws4_request")
    }

    /// The hex signature of a string to sign.
    public func signature(stringToSign: String, at time: SigV4Timestamp) -> String {
        SigV4Digest.hex(keyed(at: time).mac.authenticate(stringToSign))
    }

    /// Query items encoded, sorted by encoded name then value, and joined as `name=value&…`.
    public static func canonicalQuery(_ items: [SigV4QueryItem]) -> String {
        // Encoded forms are plain ASCII, so String ordering is the byte ordering SigV4 asks for.
        var encoded: [(name: String, value: String)] = items.map {
            (SigV4Encoding.uriEncode($0.name), SigV4Encoding.uriEncode($0.value))
        }
        encoded.sort { lhs, rhs in
            lhs.name == rhs.name ? lhs.value < rhs.value : lhs.name < rhs.name
        }
        return ascii(capacity: encoded.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 }) { query in
            for (index, item) in encoded.enumerated() {
                if index > 0 { query.append(UInt8(ascii: "&")) }
                query.append(contentsOf: item.name.utf8)
                query.append(UInt8(ascii: "="))
                query.append(contentsOf: item.value.utf8)
            }
        }
    }

    /// The canonical header block (`name:value\n` per header, names lower-cased and sorted, values trimmed with
    /// inner runs of spaces collapsed, repeated names joined with `,` in the order given) and the `;`-joined
    /// signed header names.
    public static func canonicalHeaders(_ headers: [HTTPHeader]) -> (block: String, signedHeaders: String) {
        // Sorted by name, then by position, so that a repeated name's values keep their order.
        typealias Field = (name: String, value: String, position: Int)
        var fields: [Field] = []
        fields.reserveCapacity(headers.count)
        for (position, header) in headers.enumerated() {
            fields.append((header.lowercasedName, normalizedValue(header.value), position))
        }
        fields.sort { (lhs: Field, rhs: Field) -> Bool in
            lhs.name == rhs.name ? lhs.position < rhs.position : lhs.name < rhs.name
        }
        var block: [UInt8] = []
        var signedHeaders: [UInt8] = []
        block.reserveCapacity(fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 })
        signedHeaders.reserveCapacity(fields.reduce(0) { $0 + $1.name.utf8.count + 1 })
        var previous: String?
        for field in fields {
            if field.name == previous {
                block[block.count - 1] = UInt8(ascii: ",")
            } else {
                if previous != nil { signedHeaders.append(UInt8(ascii: ";")) }
                signedHeaders.append(contentsOf: field.name.utf8)
                block.append(contentsOf: field.name.utf8)
                block.append(UInt8(ascii: ":"))
            }
            block.append(contentsOf: field.value.utf8)
            block.append(UInt8(ascii: "\n"))
            previous = field.name
        }
        return (String(decoding: block, as: UTF8.self), String(decoding: signedHeaders, as: UTF8.self))
    }

    /// The value trimmed, with inner runs of spaces and tabs collapsed to one space: the value itself when it has
    /// none to collapse, as almost every value signed has not.
    static func normalizedValue(_ value: String) -> String {
        // A leading space, a trailing one, a tab or two spaces in a row: the only things normalising changes.
        var afterSpace = true
        var plain = true
        for byte in value.utf8 where plain {
            let space = byte == UInt8(ascii: " ")
            plain = byte != UInt8(ascii: "\t") && !(space && afterSpace)
            afterSpace = space
        }
        if plain && !(afterSpace && !value.isEmpty) { return value }
        return value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }
}

extension SigV4Signer {
    public static func == (lhs: SigV4Signer, rhs: SigV4Signer) -> Bool {
        lhs.credentials == rhs.credentials && lhs.region == rhs.region && lhs.service == rhs.service
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(credentials)
        hasher.combine(region)
        hasher.combine(service)
    }
}

/// A memo of one signing key, keyed into a MAC, and the scope it signs for: a signer's inputs are public and may
/// change, so the key is reused only for exactly the inputs it was derived from.
final class SigningKeys: Sendable {
    struct Scope: Hashable {
        let dateStamp: String
        let credentials: SigV4Credentials
        let region: String
        let service: String
    }

    struct Keyed {
        let key: [UInt8]
        let mac: HMACSHA256
    }

    private let last = Mutex<(scope: Scope, keyed: Keyed)?>(nil)

    func keyed(for scope: Scope, derive: () -> [UInt8]) -> Keyed {
        if let known = last.withLock({ $0 }), known.scope == scope { return known.keyed }
        let key = derive()
        let keyed = Keyed(key: key, mac: HMACSHA256(key: key))
        last.withLock { $0 = (scope, keyed) }
        return keyed
    }
}
