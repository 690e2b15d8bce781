import Synchronization
import Testing
@testable import EmbeddedHTTP

/// Bytes that count how often one of them was read.
private struct CountedBytes: Collection {
    final class Reads: Sendable {
        let count = Atomic(0)
    }

    let bytes: [UInt8]
    let reads = Reads()

    var startIndex: Int { bytes.startIndex }
    var endIndex: Int { bytes.endIndex }
    func index(after index: Int) -> Int { index + 1 }
    subscript(position: Int) -> UInt8 {
        reads.count.add(1, ordering: .relaxed)
        return bytes[position]
    }
}

/// The comparison of presented credentials.
@Suite struct ConstantTimeTests {
    @Test func equalBytesAreEqualAndAnyDifferenceIsNot() {
        let secret = Array("0123456789abcdef".utf8)
        #expect(ConstantTime.equal(secret, secret))
        #expect(!ConstantTime.equal(secret, Array("X123456789abcdef".utf8)), "first byte")
        #expect(!ConstantTime.equal(secret, Array("0123456789abcdeX".utf8)), "last byte")
        #expect(!ConstantTime.equal(secret, Array("0123456789abcde".utf8)), "a prefix")
        #expect(!ConstantTime.equal(secret, Array("0123456789abcdef0".utf8)), "longer")
        #expect(ConstantTime.equal("", ""))
        #expect(ConstantTime.equal("tøken", "tøken") && !ConstantTime.equal("tøken", "token"))
    }

    @Test(arguments: ["X123456789abcdef", "0123456X89abcdef", "0123456789abcdeX", "0123456789abcdef"])
    func everyByteIsReadWhereverTheFirstDifferenceIs(offered: String) {
        let secret = CountedBytes(bytes: Array("0123456789abcdef".utf8))
        let presented = CountedBytes(bytes: Array(offered.utf8))
        _ = ConstantTime.equal(presented, secret)
        #expect(secret.reads.count.load(ordering: .relaxed) == 16, "no early exit at the first difference")
        #expect(presented.reads.count.load(ordering: .relaxed) == 16)
    }
}
