/// One query parameter, unencoded; the signer encodes names and values itself.
public struct SigV4QueryItem: Sendable, Hashable {
    public var name: String
    /// The value; a parameter without one (`?uploads`) has the empty string and is written `uploads=`.
    public var value: String

    public init(_ name: String, _ value: String = "") {
        self.name = name
        self.value = value
    }
}
