import Foundation

/// Deterministic, non-repeating test bytes.
public enum TestBytes {
    /// `count` bytes from a linear congruential generator seeded with `seed`.
    public static func make(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> Data {
        var state = seed
        var data = Data(count: count)
        data.withUnsafeMutableBytes { buffer in
            for index in buffer.indices {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                buffer[index] = UInt8(truncatingIfNeeded: state >> 33)
            }
        }
        return data
    }
}
