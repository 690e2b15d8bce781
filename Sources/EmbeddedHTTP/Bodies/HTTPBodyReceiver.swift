/// Receives one request's body as it arrives and produces the answer at its end.
///
/// All calls for one request come from that connection's thread, in order: `receive` per chunk, then exactly one
/// of `finish` (the body is complete) or `abandon` (the connection ended first). A receiver may block in `receive`
/// (to stall or slow the upload): the connection has a thread of its own.
public protocol HTTPBodyReceiver: AnyObject {
    /// Consumes the next chunk of the body; the bytes are only valid during the call.
    func receive(_ chunk: UnsafeRawBufferPointer) -> HTTPBodyDisposition
    /// The body is complete: the answer to send.
    func finish() -> HTTPRequestCompletion
    /// The connection ended before `finish`; release whatever the request held (partial files…).
    func abandon()
}
