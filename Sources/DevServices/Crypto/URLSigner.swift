import S3
import EmbeddedHTTP

/// Signs and checks the object store's expiring URLs.
///
/// A signature is the lower-case hex HMAC-SHA256, under a key the store owns, of `METHOD\n/path\nexpires`, where
/// the path is the decoded request path (`/` + object key) and `expires` the epoch second the URL stops working.
struct URLSigner: Sendable {
    private let key: [UInt8]

    /// A signer with a fresh random 32-byte key.
    init() {
        var generator = SystemRandomNumberGenerator()
        key = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// A signer with a given key (tests).
    init(key: [UInt8]) {
        self.key = key
    }

    /// The signature for a request.
    func signature(method: String, path: String, expires: Int64) -> String {
        SigV4Digest.hex(mac(method: method, path: path, expires: expires))
    }

    /// Whether `signature` (hex) is the signature for the request; compared in constant time.
    func isValid(_ signature: String, method: String, path: String, expires: Int64) -> Bool {
        ConstantTime.equal(signature.lowercased(), self.signature(method: method, path: path, expires: expires))
    }

    private func mac(method: String, path: String, expires: Int64) -> [UInt8] {
        SigV4Digest.hmacSHA256(key: key, message: "\(method.uppercased())\n\(path)\n\(expires)")
    }
}
