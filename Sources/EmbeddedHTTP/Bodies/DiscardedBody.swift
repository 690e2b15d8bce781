/// Reads a request body to its end without keeping it, then sends a fixed answer.
///
/// Used to answer a request with a body (an upload) after consuming it, so the client sees the answer rather than a
/// connection closed under its upload.
public final class DiscardedBody: HTTPBodyReceiver {
    private let response: ServerResponse

    /// Answers `response` once the body has been read.
    public init(answering response: ServerResponse) {
        self.response = response
    }

    /// Drops the chunk.
    public func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPBodyDisposition { .proceed }

    /// The fixed answer.
    public func finish() -> HTTPRequestCompletion { .respond(response) }

    /// Nothing to clean up.
    public func abandon() {}
}
