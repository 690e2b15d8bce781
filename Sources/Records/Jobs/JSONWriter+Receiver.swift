import UploadEngine
import WireFormat

extension JSONWriter {
    /// Writes `"name": {"id", "type"}`: a receiver as job records and presign calls carry it (DESIGN §2.1, §2.3).
    public mutating func field(_ name: StaticString, _ receiver: Receiver) {
        key(name)
        beginObject()
        field("id", receiver.id)
        field("type", receiver.type.rawValue)
        endObject()
    }
}
