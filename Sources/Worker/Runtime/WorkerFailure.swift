/// Why a worker stopped on its own: a fatal Kafka error or lost events.
public struct WorkerFailure: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
