/// Where a response's bytes come from.
public enum HTTPResponseBody {
    /// Bytes held in memory (copied into the server when the response is queued).
    case bytes([UInt8])
    /// A file, streamed by the server from disk; a file that cannot be opened answers 500 instead.
    case file(path: String)
    /// Bytes produced on demand, `length` bytes in all (nil: unknown length, sent chunked).
    case stream(length: UInt64?, producer: any HTTPBodyProducer)
}
