import Synchronization

/// A small seedable generator (SplitMix64) for backoff jitter, so tests can replay a schedule exactly.
public struct JitterRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// Seeded from a sequence the system's generator started once per process: every batch makes one, and a
    /// `getrandom` call each was a measurable part of a refused job's cost.
    public init() {
        state = Self.seeds.next()
    }

    private static let seeds = SeedSequence()

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Distinct, well-mixed seeds from one random start: SplitMix64's own stream, shared by every thread.
private final class SeedSequence: Sendable {
    private let counter: Atomic<UInt64>

    init() {
        var system = SystemRandomNumberGenerator()
        counter = Atomic(system.next())
    }

    func next() -> UInt64 {
        var generator = JitterRandom(seed: counter.wrappingAdd(0x9E37_79B9_7F4A_7C15, ordering: .relaxed).newValue)
        return generator.next()
    }
}
