import S3
import Synchronization

/// The SHA-256 of a source's first `size` bytes, fed from whatever reads them, in any order and as often as they
/// like: a read that continues the bytes hashed so far extends the hash, any other is ignored, so each byte is
/// hashed once and in order. An upload reads front to back, so its own reads give the digest; a rewound transfer or
/// a repeated attempt reads bytes again, which change nothing. `missing` says where to read what no one did.
///
/// `@unchecked Sendable`: `hasher`, `through` and `hex` are only touched while `lock` is held.
final class SourceDigest: @unchecked Sendable {
    /// The bytes the digest covers; anything read past them is not fed.
    let size: Int64
    private let lock = Mutex(())
    private let hasher = SHA256Hasher()
    /// Bytes `0..<through` are hashed.
    private var through: Int64 = 0
    /// Set once every byte was fed.
    private var hex: String?

    init(size: Int64) {
        self.size = size
    }

    /// Bytes read at `offset`.
    func feed(_ bytes: UnsafeRawBufferPointer, at offset: Int64) {
        lock.withLock { _ in
            let end = min(offset + Int64(bytes.count), size)
            guard hex == nil, offset <= through, end > through else { return }
            hasher.update(UnsafeRawBufferPointer(rebasing: bytes[Int(through - offset)..<Int(end - offset)]))
            through = end
        }
    }

    /// Where the bytes no read has fed yet start; nil once all are in, when ``sha256`` is known.
    var missing: Int64? {
        lock.withLock { _ in
            if hex == nil, through >= size { hex = hasher.finalizeHex() }
            return hex == nil ? through : nil
        }
    }

    /// The hex digest, once every byte was fed.
    var sha256: String? { lock.withLock { _ in hex } }
}
