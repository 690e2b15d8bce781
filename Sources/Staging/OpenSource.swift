import CLinux
import Foundation
import HTTPTransport
import Synchronization
import UploadEngine

/// A `path` source kept open as a file's bytes in place of a staging copy: one descriptor, so a source deleted or
/// renamed meanwhile stays readable.
///
/// The descriptor is closed when the file gives the source back (`release`) — once no read is under way, so a read
/// never meets a descriptor number the process has reused for another file — or at the latest when the last
/// reference goes. Reads are positioned (`pread`): readers never share a file offset. Every read feeds the digest
/// (`SourceDigest`), so the upload's own reads hash the source.
final class OpenSource: OpenSourceFile {
    private let descriptor: Int32
    private let use = Mutex(Use())
    let size: Int64
    /// What the file looked like when it was opened; a file that no longer looks so was changed in place.
    private let opened: Version
    private let digest: SourceDigest
    /// The cap on sources held open between attempts (`staging.maxOpenSources`); nil holds none.
    private let keptSources: FairSlots?
    /// Whether this source holds a slot of `keptSources`.
    private let kept = Atomic(false)
    /// The staged bytes, when staging read the file whole (a small file hashed before its upload signs the digest):
    /// the upload's read takes them from here instead of reading the file a second time, a system call and a copy
    /// out of the page cache of its own, and sends exactly the bytes that were hashed. Let go once read to the end,
    /// when the source is kept for a later attempt (which reads the file, as any other does) or given back: held
    /// only between a file's staging and its upload, at most ``heldBytesLimit`` a file.
    private let held = Mutex<HeldBytes?>(nil)

    /// The largest file whose staged bytes are held for its upload: a body libcurl sends with its request head,
    /// which the upload reads whole at once anyway.
    static let heldBytesLimit = 64 << 10

    /// Bytes this source owns, `size` of them. `@unchecked Sendable`: read, handed over and freed only under
    /// `held`'s lock.
    private struct HeldBytes: @unchecked Sendable {
        let bytes: UnsafeMutableRawBufferPointer
    }

    /// Who uses the descriptor: reads under way, and whether the file gave the source back.
    private struct Use {
        var readers = 0
        var released = false
        var closed = false

        /// Closes when given back and nobody reads: true when the caller must close the descriptor now.
        mutating func closesNow() -> Bool {
            guard released, readers == 0, !closed else { return false }
            closed = true
            return true
        }
    }

    /// A file's size and modification time, as `fstat` reports them.
    struct Version: Equatable, Sendable {
        var size: Int64
        var seconds: Int
        var nanoseconds: Int

        init(_ info: stat) {
            size = Int64(info.st_size)
            seconds = info.st_mtim.tv_sec
            nanoseconds = info.st_mtim.tv_nsec
        }
    }

    /// The change time and inode when opened, for ``version``.
    private let changed: timespec
    private let inode: UInt

    /// Takes ownership of `descriptor`, a regular file whose `fstat` gave `info`.
    init(descriptor: Int32, info: stat, keptSources: FairSlots?) {
        self.descriptor = descriptor
        opened = Version(info)
        size = opened.size
        changed = info.st_ctim
        inode = UInt(info.st_ino)
        digest = SourceDigest(size: size)
        self.keptSources = keptSources
    }

    /// What a multipart upload records of the file (``StagedFile/sourceVersion``) to know it again on a later attempt
    /// without reading it: its size and modification time, which DESIGN §12 names, and its change time and inode,
    /// which no `touch -r`, `cp -p` or `rsync -t` carries over to other bytes (a change of either only costs the next
    /// attempt a hash). `<size>@<mtime>,<ctime>#<inode>`, times as `<seconds>.<nanoseconds>`: at most 82 bytes.
    var version: String {
        let modified = timespec(tv_sec: opened.seconds, tv_nsec: opened.nanoseconds)
        return "\(size)@\(Self.time(modified)),\(Self.time(changed))#\(inode)"
    }

    private static func time(_ time: timespec) -> String {
        let fraction = String(time.tv_nsec)
        return "\(time.tv_sec).\(String(repeating: "0", count: max(0, 9 - fraction.count)))\(fraction)"
    }

    deinit {
        dropHeld()
        giveBack()
        if use.withLock({ !$0.closed }) { close(descriptor) }
    }

    /// Runs `body` with the descriptor, which stays open until it returns. Blocks as long as `body` does.
    ///
    /// - Throws: `ERR_SOURCE_FETCH_FAILED` (retryable) once the source was given back, or what `body` throws.
    func withDescriptor<T>(_ body: (Int32) throws -> T) throws -> T {
        let open = use.withLock { use -> Bool in
            guard !use.released else { return false }
            use.readers += 1
            return true
        }
        guard open else {
            throw UploadError(.sourceFetchFailed, "source.path was given back: its file left the batch", retryable: true)
        }
        defer {
            if use.withLock({ use in
                use.readers -= 1
                return use.closesNow()
            }) { close(descriptor) }
        }
        return try body(descriptor)
    }

    /// Gives the source back: no new read starts, and the descriptor closes once the reads under way end. Also
    /// gives back the slot `keep` took.
    func release() {
        dropHeld()
        giveBack()
        if use.withLock({ use in
            use.released = true
            return use.closesNow()
        }) { close(descriptor) }
    }

    /// A positioned read, hashed on the way. Blocks.
    ///
    /// - Throws: `ERR_SOURCE_FETCH_FAILED` (retryable) when the file cannot be read, or was given back.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        if let count = readHeld(into: buffer, at: offset) { return count }
        let count = try withDescriptor { try Self.positionedRead($0, into: buffer, at: offset) }
        digest.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), at: offset)
        return count
    }

    /// Takes over `bytes`, the source's `size` bytes as staging read (and hashed) them, for the upload to read
    /// (see `held`).
    func hold(_ bytes: UnsafeMutableRawBufferPointer) {
        precondition(bytes.count == Int(size) && bytes.count <= Self.heldBytesLimit, "held bytes are the whole source")
        let replaced = held.withLock { held in
            defer { held = HeldBytes(bytes: bytes) }
            return held
        }
        replaced?.bytes.deallocate()
    }

    /// A read served from the held bytes, nil when none are held. The read that reaches their end lets them go.
    private func readHeld(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int? {
        var spent: HeldBytes?
        defer { spent?.bytes.deallocate() }
        return held.withLock { held -> Int? in
            guard let source = held?.bytes, offset >= 0, offset <= Int64(source.count) else { return nil }
            let start = Int(offset)
            let count = min(buffer.count, source.count - start)
            if count > 0 {
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + start, byteCount: count)
            }
            if start + count == source.count {
                spent = held
                held = nil
            }
            return count
        }
    }

    private func dropHeld() {
        held.withLock { held in
            defer { held = nil }
            return held
        }?.bytes.deallocate()
    }

    /// `read`, taking only what the kernel holds in memory: nil where the bytes would have to come from a disk or
    /// a network (or the read failed: a blocking read then meets the failure and explains it). Never waits for I/O,
    /// so it may run on the cooperative pool.
    ///
    /// - Parameter onMemoryFileSystem: the file is on tmpfs or ramfs, which cannot answer `RWF_NOWAIT` and need not
    ///   (only a page swapped out would wait): it is read as usual.
    func readFromMemory(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64,
                        onMemoryFileSystem: Bool) throws -> Int? {
        let count = try withDescriptor { descriptor -> Int? in
            if onMemoryFileSystem { return try? Self.positionedRead(descriptor, into: buffer, at: offset) }
            while true {
                let count = attache_pread_cached(descriptor, buffer.baseAddress, UInt(buffer.count), offset)
                if count >= 0 { return count }
                if errno != EINTR { return nil }
            }
        }
        guard let count else { return nil }
        digest.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), at: offset)
        return count
    }

    private static func positionedRead(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer,
                                       at offset: Int64) throws -> Int {
        var count: Int
        repeat {
            count = pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
        } while count < 0 && errno == EINTR
        guard count >= 0 else { throw localFailure("cannot read source.path") }
        return count
    }

    /// The hex SHA-256 of the staged bytes, reading those no upload has read yet (all of them, before an upload
    /// that signs the digest). Blocks.
    ///
    /// - Throws: `ERR_SOURCE_FETCH_FAILED` when the file cannot be read or ends before its staged size.
    func sha256() throws -> String {
        var buffer: UnsafeMutableRawBufferPointer?
        defer { buffer?.deallocate() }
        while let next = digest.missing {
            let chunk = buffer ?? .allocate(byteCount: Int(min(Int64(StagingArea.chunkSize), size)), alignment: 64)
            buffer = chunk
            let wanted = Int(min(Int64(chunk.count), size - next))
            guard try read(into: UnsafeMutableRawBufferPointer(rebasing: chunk[0..<wanted]), at: next) > 0 else {
                throw UploadError(.sourceFetchFailed, "source.path ends at byte \(next), before the \(size) it had when staged",
                                  retryable: true)
            }
        }
        return digest.sha256 ?? ""
    }

    /// Every byte of the staged size has been read and hashed: ``sha256()`` reads nothing more.
    var digestComplete: Bool { digest.missing == nil }

    /// Throws `ERR_SOURCE_FETCH_FAILED` (retryable) when the file's size or modification time is no longer what it
    /// was when opened: it was changed in place, and the bytes read from it may mix two versions.
    func checkUnchanged() throws {
        var info = stat()
        guard try withDescriptor({ fstat($0, &info) }) == 0 else { throw localFailure("cannot inspect source.path") }
        guard Version(info) == opened else {
            throw UploadError(
                .sourceFetchFailed,
                "source.path changed while it was uploaded (size \(opened.size) → \(info.st_size), or its modification "
                    + "time); the next attempt reads it again", retryable: true)
        }
    }

    /// Holds the source open for its file's next attempt: takes a slot of the cap unless it holds one already;
    /// false when none is free.
    func keep() -> Bool {
        // The attempt the bytes were held for ended without reading them all; a later one reads the file.
        dropHeld()
        if kept.load(ordering: .acquiring) { return true }
        guard let keptSources, keptSources.tryAcquire() else { return false }
        if !kept.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            keptSources.release()
        }
        return true
    }

    private func giveBack() {
        if kept.exchange(false, ordering: .acquiringAndReleasing) { keptSources?.release() }
    }
}
