/// Produces a streamed response body, one block at a time, on the connection's thread.
///
/// The producer may block (for example to limit the rate): each connection has a thread of its own.
public protocol HTTPBodyProducer: AnyObject {
    /// Writes the next bytes of the body, which start at `offset`, into `buffer`.
    func produce(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> HTTPBodyChunk

    /// Called once, on the connection's thread, when the response is queued (before the first ``produce(into:at:)``):
    /// the handle that ends this connection from any thread. The default ignores it.
    func connected(_ connection: HTTPConnectionHandle)
}

extension HTTPBodyProducer {
    /// Ignores the handle: most bodies end by themselves.
    public func connected(_ connection: HTTPConnectionHandle) {}
}
