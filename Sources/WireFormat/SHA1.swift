/// FIPS 180-4 SHA-1, streaming, enough for name-based UUIDs: its state and block live inline, so hashing allocates
/// nothing.
struct SHA1 {
    typealias Digest = (UInt32, UInt32, UInt32, UInt32, UInt32)

    private var state: Digest = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
    /// The block being filled: 64 bytes.
    private var block: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var filled = 0
    private var length: UInt64 = 0

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes { update(byte: byte) }
    }

    mutating func update(byte: UInt8) {
        withUnsafeMutableBytes(of: &block) { $0[filled] = byte }
        filled += 1
        length &+= 1
        if filled == 64 { compress() }
    }

    /// The digest's five words (its bytes are the words big-endian, in order).
    mutating func finish() -> Digest {
        let bits = length &* 8
        update(byte: 0x80)
        while filled != 56 { update(byte: 0) }
        for shift in stride(from: 56, through: 0, by: -8) { update(byte: UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        return state
    }

    private mutating func compress() {
        filled = 0
        let words = withUnsafeBytes(of: block) { bytes in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { w -> Digest in
                for i in 0..<16 { w[i] = UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)) }
                for i in 16..<80 { w[i] = Self.rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1) }
                var (a, b, c, d, e) = state
                for i in 0..<80 {
                    let (f, k): (UInt32, UInt32) = switch i {
                    case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
                    case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
                    case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                    default: (b ^ c ^ d, 0xCA62_C1D6)
                    }
                    let temp = Self.rotl(a, 5) &+ f &+ e &+ k &+ w[i]
                    (e, d, c, b, a) = (d, c, Self.rotl(b, 30), a, temp)
                }
                return (a, b, c, d, e)
            }
        }
        state = (state.0 &+ words.0, state.1 &+ words.1, state.2 &+ words.2, state.3 &+ words.3, state.4 &+ words.4)
    }

    private static func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { (x << n) | (x >> (32 - n)) }
}
