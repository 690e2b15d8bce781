import Foundation
import Testing
@testable import WireFormat

/// Version-5 UUIDs and the SHA-1 under them, against the published vectors.
@Suite struct NameBasedUUIDTests {
    @Test func sha1MatchesTheStandardVectors() {
        let hex = { (s: String) in SHA1.hash(Array(s.utf8)).map { String(format: "%02x", $0) }.joined() }
        #expect(hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }

    @Test func sha1OfAMessageFedInPiecesIsItsOneShotDigest() {
        // The million-a vector, fed in pieces that cross block boundaries at every offset.
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        var hash = SHA1()
        var start = 0
        var piece = 1
        message.withUnsafeBytes { bytes in
            while start < bytes.count {
                let end = min(start + piece, bytes.count)
                hash.update(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                start = end
                piece = piece % 131 + 1
            }
        }
        let digest = hash.finish()
        #expect([digest.0, digest.1, digest.2, digest.3, digest.4] == [0x34AA_973C, 0xD4C4_DAA4, 0xF61E_EB2B, 0xDBAD_2731, 0x6534_016F])
        var bytewise = SHA1()
        for byte in "abc".utf8 { bytewise.update(byte: byte) }
        #expect(SHA1.hash(Array("abc".utf8)) == { () -> [UInt8] in
            let d = bytewise.finish()
            return [d.0, d.1, d.2, d.3, d.4].flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(24 - $0 * 8)) } }
        }())
    }

    @Test func versionFiveUUIDsMatchTheRFCExample() {
        // RFC 9562 appendix A.4: name "www.example.com" in the DNS namespace.
        let dns = UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8")!
        #expect(NameBasedUUID.make(namespace: dns, name: "www.example.com").uuidString.lowercased() == "2ed6657d-e927-568b-95e1-2665a8aea6a2")
        #expect(NameBasedUUID.string(namespace: dns, joining: ["www.example.com"]) == "2ed6657d-e927-568b-95e1-2665a8aea6a2")
    }

    @Test func partsHashAsTheirNULJoinedName() {
        let parts = ["batch-1", "f1", "attache.file.uploaded", ""]
        #expect(NameBasedUUID.make(namespace: NameBasedUUID.messageNamespace, joining: parts)
            == NameBasedUUID.make(namespace: NameBasedUUID.messageNamespace, name: parts.joined(separator: "\u{0}")))
    }

    @Test func namesAcrossBlockBoundariesMatchTheOneShotDigest() {
        // 55, 56 and 64 bytes end exactly where padding needs another block; long names take several.
        for count in [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000] {
            let name = String(repeating: "x", count: count)
            let uuid = NameBasedUUID.make(namespace: NameBasedUUID.messageNamespace, name: name)
            var bytes = withUnsafeBytes(of: NameBasedUUID.messageNamespace.uuid) { Array($0) } + Array(name.utf8)
            bytes = SHA1.hash(bytes)
            bytes[6] = (bytes[6] & 0x0F) | 0x50
            bytes[8] = (bytes[8] & 0x3F) | 0x80
            #expect(withUnsafeBytes(of: uuid.uuid) { Array($0) } == Array(bytes[0..<16]), "name of \(count) bytes")
            #expect(NameBasedUUID.lowercased(uuid) == uuid.uuidString.lowercased())
        }
    }
}

extension SHA1 {
    /// The 20-byte digest of `message`, for the vectors.
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var hash = SHA1()
        message.withUnsafeBytes { hash.update($0) }
        let digest = hash.finish()
        return [digest.0, digest.1, digest.2, digest.3, digest.4].flatMap { word in
            (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(24 - $0 * 8)) }
        }
    }
}
