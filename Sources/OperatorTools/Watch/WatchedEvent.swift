import WireFormat

/// An event of the events topic (DESIGN §2.2) as `attache watch` reads it: its type, batch, sequence and data.
public struct WatchedEvent: Sendable {
    public let type: String
    public let batchId: String
    public let sequence: UInt64?
    public let data: JSONValue

    /// Nil for a value that is not a CloudEvent of Attache's.
    public init?(json bytes: some Collection<UInt8>) {
        guard let value = try? JSONParser.parse(bytes), let type = value["type"]?.stringValue,
              let batchId = value["subject"]?.stringValue ?? value["data"]?["batchId"]?.stringValue else { return nil }
        self.type = type
        self.batchId = batchId
        self.sequence = value["sequence"]?.stringValue.flatMap { UInt64($0) }
        self.data = value["data"] ?? .null
    }

    public var fileId: String? { data["fileId"]?.stringValue }
    public var errorCode: String? { data["error"]?["code"]?.stringValue }
}
