import Foundation
import HTTPTransport

/// The body of a CompleteMultipartUpload request: the uploaded parts in ascending part order.
public struct S3CompleteMultipartUpload: Sendable, Hashable {
    /// The parts, in ascending part number.
    public var parts: [S3CompletedPart]

    /// The parts, sorted by part number as S3 requires.
    public init(parts: [S3CompletedPart]) {
        self.parts = parts.sorted { $0.partNumber < $1.partNumber }
    }

    /// The XML document S3 expects.
    public var xml: Data {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text += "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        for part in parts {
            text += "<Part><PartNumber>\(part.partNumber)</PartNumber>"
            text += "<ETag>\(S3XMLElement.escape(part.etag))</ETag>"
            if let checksum = part.checksumSHA256 {
                text += "<ChecksumSHA256>\(S3XMLElement.escape(checksum))</ChecksumSHA256>"
            }
            text += "</Part>"
        }
        text += "</CompleteMultipartUpload>"
        return Data(text.utf8)
    }
}
