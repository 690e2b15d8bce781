/// The values one label of a metric family may take (`docs/contract.md`, "Metrics stay bounded"): a closed set of
/// words, or the whole numbers below a bound. Anything else is counted as ``MetricsRegistry/otherValue``.
public enum LabelDomain: Sendable, ExpressibleByArrayLiteral {
    /// One of these words (error codes, outcomes, kinds).
    case words(Set<String>)
    /// A decimal whole number in `0..<bound`, written without sign or leading zeros: partition numbers, which the
    /// group's assignment hands out, never a record.
    case numbers(below: Int)

    /// The closed set of the words listed.
    public init(arrayLiteral elements: String...) {
        self = .words(Set(elements))
    }

    /// Whether `value` keeps a series of its own.
    func admits(_ value: String) -> Bool {
        switch self {
        case .words(let words):
            return words.contains(value)
        case .numbers(let bound):
            guard let number = Int(value), number >= 0, number < bound else { return false }
            return String(number) == value
        }
    }
}
