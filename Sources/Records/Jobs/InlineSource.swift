import Foundation
import WireFormat

/// Reads one file's inline bytes back out of the job record that carried them: a batch restored from a snapshot
/// holds no inline bytes, only where they are (``RecordOrigin``).
public enum InlineSource {
    /// The decoded `files[index].source.data` of a job record's value; nil when the record no longer says so.
    public static func bytes(in value: Data, fileIndex index: Int) -> Data? {
        guard let job = try? JSONParser.parse(value), case .array(let files) = job["files"] ?? .null,
              files.indices.contains(index), case .file(let file) = RawFileEntry(reading: files[index]),
              let encoded = file.source?.data else { return nil }
        return Data(base64Encoded: encoded)
    }
}
