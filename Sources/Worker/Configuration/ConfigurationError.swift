/// A configuration problem, naming the key (or environment variable) at fault.
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The key as written in the file (`limits.fileSizeMax`) or the environment variable.
    public var key: String
    public var problem: String

    public init(key: String, _ problem: String) {
        self.key = key
        self.problem = problem
    }

    public var description: String { "configuration: \(key): \(problem)" }
}
