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

    @Test func versionFiveUUIDsMatchTheRFCExample() {
        // RFC 9562 appendix A.4: name "www.example.com" in the DNS namespace.
        let dns = UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8")!
        #expect(NameBasedUUID.make(namespace: dns, name: "www.example.com").uuidString.lowercased() == "2ed6657d-e927-568b-95e1-2665a8aea6a2")
    }
}
