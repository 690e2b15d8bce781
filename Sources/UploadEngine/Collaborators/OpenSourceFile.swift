/// A source file kept open as a staged file's bytes (``StagedBytes/source(_:)``), as its readers see it.
///
/// The file stays readable, even when it is deleted or renamed meanwhile, until the stager's `release` gives it
/// back; a read after that throws. Implementers are thread safe: a superseded attempt may still be reading while the
/// next one starts, and the parts of a multipart upload are read at once.
public protocol OpenSourceFile: AnyObject, Sendable {
    /// The bytes to send: the file's size when it was staged. A file that grew since still sends only these.
    var size: Int64 { get }
    /// Reads up to `buffer.count` bytes at `offset` into `buffer` and returns how many; 0 at the end of the file.
    /// Blocks: call it off the cooperative pool.
    ///
    /// - Throws: when the file cannot be read; the error says why.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int
}
