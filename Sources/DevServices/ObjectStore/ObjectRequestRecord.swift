/// One request the object store handled (injected faults that answered for it are recorded by the `FaultPlan`).
public struct ObjectRequestRecord: Sendable, Hashable {
    /// The method.
    public var method: String
    /// The decoded path (`/` + key).
    public var path: String
    /// The status answered; nil when the connection ended before an answer (an upload cut off).
    public var status: Int?
    /// The request's `traceparent` header, if it had one.
    public var traceparent: String?
}
