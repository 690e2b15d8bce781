/// A request body read in place at any offset — a file someone else keeps open. A transfer reads it with positioned
/// reads on the transfer thread, so one body can be shared by several transfers (the parts of one upload).
public protocol RandomAccessBody: AnyObject, Sendable {
    /// The bytes to send; a file that grew since stays this size.
    var size: Int64 { get }
    /// Reads up to `buffer.count` bytes at `offset` into `buffer` and returns how many; 0 at the end. Blocks.
    ///
    /// - Throws: when the bytes cannot be read; the error says why.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int
}
