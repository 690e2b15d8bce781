import Foundation
import WireFormat

/// An event of the events topic (DESIGN §2.2) as `attache watch` and the dashboard read it: its type, batch,
/// sequence, envelope and data.
public struct WatchedEvent: Sendable {
    public let type: String
    public let batchId: String
    public let sequence: UInt64?
    /// The CloudEvents `id`: the same for a transition published again (a replay, the next owner), so readers that
    /// fold events drop repeats by it.
    public let id: String?
    /// The CloudEvents `source`: `attache/<worker.id>`.
    public let source: String?
    /// The CloudEvents `time`, when it is a valid RFC 3339 time.
    public let time: Date?
    public let data: JSONValue
    /// The `tenant` extension attribute: the batch's tenant, when its job named one.
    public let tenant: String?

    /// Nil for a value that is not a CloudEvent of Attache's.
    public init?(json bytes: some Collection<UInt8>) {
        guard let value = try? JSONParser.parse(bytes), let type = value["type"]?.stringValue,
              let batchId = value["subject"]?.stringValue ?? value["data"]?["batchId"]?.stringValue else { return nil }
        self.type = type
        self.batchId = batchId
        self.sequence = value["sequence"]?.stringValue.flatMap { UInt64($0) }
        self.id = value["id"]?.stringValue
        self.source = value["source"]?.stringValue
        self.time = value["time"]?.stringValue.flatMap(RFC3339Instant.parse)
        self.data = value["data"] ?? .null
        self.tenant = value["tenant"]?.stringValue
    }

    public var fileId: String? { data["fileId"]?.stringValue }
    public var errorCode: String? { data["error"]?["code"]?.stringValue }
}
