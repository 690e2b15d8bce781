/// Produces a streamed response body, one block at a time, on the connection's thread.
///
/// The producer may block (for example to limit the rate): each connection has a thread of its own.
public protocol HTTPBodyProducer: AnyObject {
    /// Writes the next bytes of the body, which start at `offset`, into `buffer`.
    func produce(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) -> HTTPBodyChunk
}
