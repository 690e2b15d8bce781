/// Every string a jobs-topic record supplies, with its byte limit: the one table of DESIGN §2.1 "Every string a
/// record supplies has a byte limit".
///
/// Checked once, where records are decoded (``JobDecoder``, and ``TraceContext/init(kafkaHeaders:)`` for the headers),
/// and nowhere downstream: with every string a record brings bounded here, the event encoder, the snapshot codec and
/// the HTTP and Kafka headers meet nothing they cannot fit. Over its limit, a job-level field makes the record invalid
/// (dead-letter topic), a file-level field rejects that file `ERR_INVALID_FILE_OBJECT`, and a header is ignored.
public enum RecordField: String, CaseIterable, Sendable {
    case batchId
    case requestId
    case receiverId = "receiver.id"
    case sender
    case parentMessageId
    case tenant
    case fileId
    case name
    /// With its parameters: the whole `Content-Type` value.
    case mimeType
    case url = "source.url"
    case path = "source.path"
    /// The header as it arrives; what is carried is its 55-character form (``TraceContext``).
    case traceparent
    case tracestate

    /// The most bytes of UTF-8 the field may take.
    public var maxBytes: Int {
        switch self {
        case .batchId, .requestId, .receiverId, .sender, .parentMessageId, .tenant, .fileId: 128
        case .name, .mimeType: 255
        case .url: 8 * 1024
        case .path: 4 * 1024
        case .traceparent: 256
        case .tracestate: 512
        }
    }
}
