/// Collects a small request body (JSON) in memory, up to a limit, and answers from it at the end.
///
/// A body over the limit is read to its end and discarded, then answered `413` without calling `respond`.
public final class CollectedBody: HTTPBodyReceiver {
    private let limit: Int
    private let respond: ([UInt8]) -> ServerResponse
    private var bytes: [UInt8] = []
    private var overflowed = false

    /// Collects at most `limit` bytes, then answers with `respond(body)`.
    public init(limit: Int, respond: @escaping ([UInt8]) -> ServerResponse) {
        self.limit = limit
        self.respond = respond
    }

    /// Appends the chunk unless the limit is exceeded.
    public func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPBodyDisposition {
        guard !overflowed else { return .proceed }
        if bytes.count + chunk.count > limit {
            overflowed = true
            bytes = []
        } else {
            bytes.append(contentsOf: chunk)
        }
        return .proceed
    }

    /// The answer: `respond(body)`, or 413 when the body was too large.
    public func finish() -> HTTPRequestCompletion {
        if overflowed {
            return .respond(.text(413, "request body larger than \(limit) bytes\n"))
        }
        return .respond(respond(bytes))
    }

    /// Nothing to clean up: the bytes are only in memory.
    public func abandon() {}
}
