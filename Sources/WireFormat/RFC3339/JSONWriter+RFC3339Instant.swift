import Foundation

extension JSONWriter {
    /// Writes an RFC 3339 timestamp with milliseconds (`RFC3339Instant.format`) as a string, straight into the output.
    public mutating func time(_ date: Date) {
        rawString(count: RFC3339Instant.length) { RFC3339Instant.write(date, into: $0) }
    }
}
