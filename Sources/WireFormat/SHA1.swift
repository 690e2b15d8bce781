/// FIPS 180-4 SHA-1, streaming, enough for name-based UUIDs: its state and block live inline, so hashing allocates
/// nothing. Every event's id is one (two blocks a name), so input is copied into the block in runs and a whole block
/// of input is compressed where it lies: byte by byte, an id cost as much as the rest of encoding its event.
struct SHA1 {
    typealias Digest = (UInt32, UInt32, UInt32, UInt32, UInt32)

    private var state: Digest = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
    /// The block being filled: 64 bytes.
    private var block: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var filled = 0
    private var length: UInt64 = 0

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var next = bytes.baseAddress else { return }
        var remaining = bytes.count
        length &+= UInt64(remaining)
        while remaining > 0 {
            if filled == 0, remaining >= 64 {
                compress(next)
                next += 64
                remaining -= 64
                continue
            }
            let taken = min(64 - filled, remaining)
            let at = filled
            withUnsafeMutableBytes(of: &block) { $0.baseAddress!.advanced(by: at).copyMemory(from: next, byteCount: taken) }
            filled += taken
            next += taken
            remaining -= taken
            if filled == 64 { compressBlock() }
        }
    }

    mutating func update(byte: UInt8) {
        withUnsafeBytes(of: byte) { update($0) }
    }

    /// The digest's five words (its bytes are the words big-endian, in order).
    mutating func finish() -> Digest {
        let bits = length &* 8
        let at = filled
        withUnsafeMutableBytes(of: &block) { block in
            block[at] = 0x80
            block.baseAddress!.advanced(by: at + 1).initializeMemory(as: UInt8.self, repeating: 0, count: 63 - at)
        }
        if at >= 56 {
            compressBlock()
            block = (0, 0, 0, 0, 0, 0, 0, 0)
        }
        block.7 = bits.bigEndian
        compressBlock()
        return state
    }

    private mutating func compressBlock() {
        filled = 0
        let copy = block
        withUnsafeBytes(of: copy) { compress($0.baseAddress!) }
    }

    /// Folds the 64 bytes at `input` into the state: the message schedule kept as a rolling window of 16 words, each
    /// round's function in a loop of its own. Plain loops and an inlined step over locals: nested functions capturing
    /// the working variables boxed them on the heap, and choosing the function inside one loop of 80 doubled the
    /// instructions a block.
    private mutating func compress(_ input: UnsafeRawPointer) {
        let folded = withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 16) { w -> Digest in
            for i in 0..<16 { w[i] = UInt32(bigEndian: input.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)) }
            var (a, b, c, d, e) = state
            for i in 0..<16 {
                let f = (b & c) | (~b & d)
                Self.step(&a, &b, &c, &d, &e, f &+ 0x5A82_7999, w[i])
            }
            for i in 16..<20 {
                let f = (b & c) | (~b & d)
                Self.step(&a, &b, &c, &d, &e, f &+ 0x5A82_7999, Self.schedule(w, i))
            }
            for i in 20..<40 {
                let f = b ^ c ^ d
                Self.step(&a, &b, &c, &d, &e, f &+ 0x6ED9_EBA1, Self.schedule(w, i))
            }
            for i in 40..<60 {
                let f = (b & c) | (b & d) | (c & d)
                Self.step(&a, &b, &c, &d, &e, f &+ 0x8F1B_BCDC, Self.schedule(w, i))
            }
            for i in 60..<80 {
                let f = b ^ c ^ d
                Self.step(&a, &b, &c, &d, &e, f &+ 0xCA62_C1D6, Self.schedule(w, i))
            }
            return (a, b, c, d, e)
        }
        state = (state.0 &+ folded.0, state.1 &+ folded.1, state.2 &+ folded.2, state.3 &+ folded.3, state.4 &+ folded.4)
    }

    /// One round, given its function of b, c and d already added to its constant.
    @inline(__always)
    private static func step(_ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32, _ d: inout UInt32, _ e: inout UInt32,
                             _ fk: UInt32, _ word: UInt32) {
        let temp = rotl(a, 5) &+ fk &+ e &+ word
        e = d
        d = c
        c = rotl(b, 30)
        b = a
        a = temp
    }

    /// Word `i` (16 or more) of the message schedule, put in place of word `i - 16` in the rolling window.
    @inline(__always)
    private static func schedule(_ w: UnsafeMutableBufferPointer<UInt32>, _ i: Int) -> UInt32 {
        let next = rotl(w[(i - 3) & 15] ^ w[(i - 8) & 15] ^ w[(i - 14) & 15] ^ w[i & 15], 1)
        w[i & 15] = next
        return next
    }

    private static func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { (x << n) | (x >> (32 - n)) }
}
