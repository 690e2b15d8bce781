extension Duration {
    /// Whole milliseconds (rounded down), clamped to what librdkafka's `int` timeouts accept.
    var clampedMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        let value = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(value, 0))
    }
}
