import UploadEngine

/// A seeded generator: a schedule drawn from it is the same on every run, so a failing seed can be replayed. The
/// engine's jitter generator is SplitMix64 already.
public typealias SplitMix64 = JitterRandom
