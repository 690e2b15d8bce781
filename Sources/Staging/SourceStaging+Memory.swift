import CLinux
import Foundation
import UploadEngine

/// `path` sources the kernel already holds in memory, staged on the calling task.
///
/// Most sources are small files written shortly before their job: their directory entries and bytes are in the
/// page cache, and opening, sniffing and hashing them takes a few microseconds of CPU — less than the two thread
/// hand-offs of a trip to the staging queue. Every step here is asked of the kernel in a form that answers from
/// memory or not at all (`RESOLVE_CACHED`, `RWF_NOWAIT`), so the cooperative pool never waits for a disk or a network
/// file system; whatever would wait takes the staging queue's path from the start. Only a root on a local file
/// system is looked at so (an open on a network one can be a round trip however well its name is cached), and only
/// files on the root's own file system (a mount below it takes the queue's path). Files are opened without
/// updating their access time, which is a journal write: where the worker may not do that (it neither owns the
/// file nor runs as root), the queue's path opens it.
extension SourceStaging {
    /// An opened `path` source: the file, what its first bytes show, and its digest when it was asked for.
    typealias SourceLook = (source: OpenSource, shown: ContentSignature?, digest: String?)

    /// Opens, checks and sniffs a `path` source of at most `StagingArea.inlineDigestBytes` — and hashes it, when
    /// `hashing` — from what the kernel holds in memory; nil when any step would wait for I/O, or found anything
    /// but a small regular file (the staging queue's path then meets it and explains it).
    ///
    /// - Throws: what the path's text alone is refused for, and `ERR_FILE_TOO_LARGE` past `sizeLimit`: the same
    ///   errors the staging queue's path gives.
    func lookInMemory(_ relative: String, sizeLimit: Int64, hashing: Bool) throws -> SourceLook? {
        guard looksInMemory else { return nil }
        let root = try checkedRoot(for: relative)
        let directory = attache_open_cached_directory(root)
        guard directory >= 0 else { return nil }
        defer { close(directory) }
        // Asked again each time: a network file system mounted on the root since the worker started is not local.
        // The file is on the same one (`RESOLVE_NO_XDEV`), so its kind is the file's too.
        let kind = attache_file_system_kind_of(directory)
        guard kind > 0 else { return nil }
        guard let source = Self.regularFile(attache_open_cached_file(directory, relative), keptSources: keptSources) else {
            return nil
        }
        guard source.size <= sizeLimit else {
            source.release()
            throw StagingStream.sizeExceeded(sizeLimit)
        }
        guard source.size <= StagingArea.inlineDigestBytes else {
            source.release()
            return nil
        }
        let wanted = Int(hashing ? source.size : min(Int64(ContentSignature.window), source.size))
        let inMemory = kind == 2
        func look(into buffer: UnsafeMutableRawBufferPointer) throws -> SourceLook? {
            var filled = 0
            while filled < wanted {
                let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<wanted])
                // A file shorter than it measured (count 0) is left to the queue's path too, which says so.
                guard let count = try source.readFromMemory(into: rest, at: Int64(filled), onMemoryFileSystem: inMemory),
                      count > 0 else { return nil }
                filled += count
            }
            let sniffed = UnsafeRawBufferPointer(rebasing: buffer[0..<min(filled, ContentSignature.window)])
            return (source, ContentSignature.sniff(sniffed), hashing ? try source.sha256() : nil)
        }
        // A small file read whole is held for its upload, which then reads no file (OpenSource.hold).
        let holds = hashing && wanted > 0 && wanted <= OpenSource.heldBytesLimit
        let found = try holds
            ? Self.lookHolding(wanted, in: source, look)
            : withUnsafeTemporaryAllocation(byteCount: max(wanted, 1), alignment: 16) { try look(into: $0) }
        if found == nil { source.release() }
        return found
    }

    /// `look` into a buffer that `source` keeps when the look succeeds (``OpenSource/hold(_:)``).
    private static func lookHolding(_ count: Int, in source: OpenSource,
                                    _ look: (UnsafeMutableRawBufferPointer) throws -> SourceLook?) throws -> SourceLook? {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        var held = false
        defer { if !held { buffer.deallocate() } }
        guard let found = try look(buffer) else { return nil }
        source.hold(buffer)
        held = true
        return found
    }
}
