/// One query parameter, unencoded; the signer encodes names and values itself.
public struct SigV4QueryItem: Sendable, Hashable {
    /// The parameter name, e.g. `partNumber`.
    public var name: String
    /// The value; a parameter without one (`?uploads`) has the empty string and is written `uploads=`.
    public var value: String

    /// A parameter; leave `value` out for one without a value.
    public init(_ name: String, _ value: String = "") {
        self.name = name
        self.value = value
    }
}
