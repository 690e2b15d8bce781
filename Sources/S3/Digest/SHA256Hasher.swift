internal import CCrypto
import Foundation

/// Incremental SHA-256 on libcrypto, fed while a file streams through staging.
///
/// Not `Sendable`: one copy job owns it from start to `finalize`.
public final class SHA256Hasher {
    private let context: OpaquePointer

    /// A hasher with nothing fed yet.
    public init() {
        // Allocation or a broken libcrypto provider are the only failures; nothing can be staged without a digest.
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, SigV4Digest.algorithm, nil) == 1 else {
            preconditionFailure("libcrypto cannot initialise SHA-256")
        }
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    /// Feeds `bytes`.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// Feeds `bytes`.
    public func update(_ bytes: some ContiguousBytes) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest of everything fed so far, lower-case hex. Call once.
    public func finalizeHex() -> String {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &output, &length)
        return SigV4Digest.hex(output.prefix(Int(length)))
    }

    /// The hex SHA-256 of some bytes.
    public static func hex(of bytes: some ContiguousBytes) -> String {
        let hasher = SHA256Hasher()
        hasher.update(bytes)
        return hasher.finalizeHex()
    }
}
