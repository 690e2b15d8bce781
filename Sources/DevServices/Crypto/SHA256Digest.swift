import CCrypto

/// Incremental SHA-256 (libcrypto EVP), fed while bytes stream through.
///
/// Used from one thread at a time (a connection's thread); not `Sendable`.
final class SHA256Digest {
    private let context: OpaquePointer

    /// Starts an empty digest.
    init() {
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("libcrypto cannot initialise SHA-256")
        }
        self.context = context
    }

    /// Adds bytes to the digest.
    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// The digest of everything added so far, lower-case hex. Call once.
    func finalizeHex() -> String {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &output, &length)
        return output.prefix(Int(length)).hexString
    }

    /// The SHA-256 of `bytes`, lower-case hex.
    static func hex<Bytes: Sequence<UInt8>>(of bytes: Bytes) -> String {
        let digest = SHA256Digest()
        Array(bytes).withUnsafeBytes { digest.update($0) }
        return digest.finalizeHex()
    }

    deinit {
        EVP_MD_CTX_free(context)
    }
}
