import Foundation
import UploadEngine

extension JSONWriter {
    /// Writes an `EventTime` timestamp as a string, straight into the output.
    mutating func time(_ date: Date) {
        rawString { EventTime.append(date, to: &$0) }
    }
}
