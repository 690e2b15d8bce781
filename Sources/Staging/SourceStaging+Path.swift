import CLinux
import Foundation
import HTTPTransport
import UploadEngine

/// `path` sources: a regular file that resolves, symlinks included, inside `sources.root`, read in place.
extension SourceStaging {
    /// The real path of a `path` source, checked to lie inside the source root. Blocks: call off the pool.
    ///
    /// A path that climbs out of the root by its own `..` components is refused before the file system is asked,
    /// so an escape attempt is refused whether or not its target exists.
    func resolve(_ relative: String) throws -> String {
        let root = try checkedRoot(for: relative)
        guard let resolved = realpath(root + "/" + relative, nil) else {
            let reason = String(cString: strerror(errno))
            throw UploadError(.sourceUnresolvable, "source.path cannot be resolved: \(reason)", retryable: false)
        }
        defer { free(resolved) }
        let path = String(cString: resolved)
        guard path.hasPrefix(root + "/") else {
            throw UploadError(.sourceForbidden, "source.path resolves outside the source root", retryable: false)
        }
        return path
    }

    /// The source root, once `relative` has passed the checks made on its text alone.
    func checkedRoot(for relative: String) throws -> String {
        guard let root = sourceRoot else {
            throw UploadError(.sourceForbidden, "path sources are not enabled (sources.root)", retryable: false)
        }
        guard !relative.isEmpty, !relative.utf8.contains(0) else {
            throw UploadError(.invalidFileObject, "source.path is empty or contains a NUL byte", retryable: false)
        }
        guard !relative.hasPrefix("/") else {
            throw UploadError(.sourceForbidden, "source.path must be relative to the source root", retryable: false)
        }
        // Walked over the bytes, component by component, without making them: this runs for every path source.
        var depth = 0
        var component = (length: 0, dots: 0)
        for byte in relative.utf8 {
            if byte == UInt8(ascii: "/") {
                depth += Self.depthChange(length: component.length, dots: component.dots)
                if depth < 0 { throw UploadError(.sourceForbidden, "source.path leads outside the source root", retryable: false) }
                component = (0, 0)
            } else {
                component.length += 1
                if byte == UInt8(ascii: ".") { component.dots += 1 }
            }
        }
        depth += Self.depthChange(length: component.length, dots: component.dots)
        if depth < 0 { throw UploadError(.sourceForbidden, "source.path leads outside the source root", retryable: false) }
        return root
    }

    /// What one path component does to the depth below the root: `..` climbs, `.` and empty ones (`a//b`) stay.
    private static func depthChange(length: Int, dots: Int) -> Int {
        switch (length, dots) {
        case (0, _), (1, 1): 0
        case (2, 2): -1
        default: 1
        }
    }

    /// Opens a `path` source inside the root. Blocks: call off the pool.
    ///
    /// The kernel resolves the path beneath the root in one atomic lookup (`openat2`, `RESOLVE_BENEATH`): no
    /// `realpath` walk, no second look through `/proc/self/fd`. Whatever that lookup does not open as a regular
    /// file takes the long way, `resolve` then `openSource`, which decides and explains it: an error, an absolute
    /// symlink (refused by the lookup even when it points inside the root), a kernel or sandbox without `openat2`.
    func openInRoot(_ relative: String) throws -> OpenSource {
        let root = try checkedRoot(for: relative)
        if let source = Self.openBeneath(root, relative, keptSources: keptSources) { return source }
        return try Self.openSource(try resolve(relative), root: root, keptSources: keptSources)
    }

    /// A regular file opened beneath `root` by the kernel's own check, or nil for anything else.
    private static func openBeneath(_ root: String, _ relative: String, keptSources: FairSlots?) -> OpenSource? {
        let directory = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return nil }
        defer { close(directory) }
        return regularFile(attache_open_beneath(directory, relative, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY),
                           keptSources: keptSources)
    }

    /// `input` (opened `O_NONBLOCK`, or -1) as an open source when it is a regular file; otherwise nil, and closed.
    static func regularFile(_ input: Int32, keptSources: FairSlots?) -> OpenSource? {
        guard input >= 0 else { return nil }
        var info = stat()
        guard fstat(input, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(input)
            return nil
        }
        // As in `openSource`: the flag only kept a FIFO from hanging the open.
        _ = fcntl(input, F_SETFL, 0)
        return OpenSource(descriptor: input, info: info, keptSources: keptSources)
    }

    /// Opens a `path` source to be read in place — never copied: the size limit is checked on the opened file, the
    /// content sniffed from its first bytes, and the SHA-256 computed at once only when the presigner signs it into
    /// the upload; otherwise the upload's own reads compute it (see `finishUpload`). A source whose version (size and
    /// modification time) is the one the multipart upload it resumes recorded takes that upload's digest: hashing a
    /// large file again would cost a new owner a read of every byte before its first part.
    func stageInPlace(_ relative: String, file: FileItem, sizeLimit: Int64, progress: StagingProgress,
                      resuming: MultipartUpload?) async throws -> StagedFile {
        let signsDigest = settings.signsDigest
        // A small file the kernel holds in memory is looked at here, on the task; anything else takes one trip off the
        // pool for the open, the size check, the sniff and — for a file small enough that hashing it costs less than
        // another trip — the digest: each trip is two thread hand-offs, which for a 16 KiB file cost more than the
        // work itself.
        let look: SourceLook
        if let inMemory = try lookInMemory(relative, sizeLimit: sizeLimit, hashing: signsDigest) {
            look = inMemory
        } else {
            look = try await StagingArea.offPool { [self] in
                let source = try openInRoot(relative)
                guard source.size <= sizeLimit else { throw StagingStream.sizeExceeded(sizeLimit) }
                let shown = try Self.sniff(source)
                let digest = signsDigest && source.size <= StagingArea.inlineDigestBytes ? try source.sha256() : nil
                return (source, shown, digest)
            }
        }
        let (source, shown, smallDigest) = look
        if let verdict = StagingStream.contradiction(declared: file.mimeType, shown: shown) { throw verdict }
        // Only where a digest takes a read of its own (a multipart upload's file always does): a small file is hashed
        // in the pass that sniffs it, and spelling its version out would be work on every small job for nothing.
        let version = source.size > StagingArea.inlineDigestBytes ? source.version : nil
        var sha256 = smallDigest ?? ""
        if smallDigest == nil, let version, let resuming, !resuming.sha256.isEmpty, resuming.sourceVersion == version {
            sha256 = resuming.sha256
        } else if signsDigest, smallDigest == nil {
            // Hashing is CPU work as much as I/O: under the same per-core cap as staging copies.
            sha256 = try await StagingArea.copySlots.run { try await StagingArea.offPool { try source.sha256() } }
        }
        progress.update(source.size, of: source.size)
        return StagedFile(bytes: .source(source), size: source.size, sha256: sha256,
                          mimeType: ContentSignature.stagedType(declared: file.mimeType, shown: shown),
                          sourceVersion: version)
    }

    /// Whether a failed file may hold its open source for its next attempt: within `staging.maxOpenSources`.
    public func keep(_ staged: StagedFile) -> Bool {
        guard case .source(let source) = staged.bytes, let opened = source as? OpenSource else { return true }
        return opened.keep()
    }

    /// For a source read in place: throws `ERR_SOURCE_FETCH_FAILED` when it changed in place since it was opened,
    /// and gives the digest its upload computed (reading what the upload did not, if anything).
    public func finishUpload(of staged: StagedFile, uploaded: Bool) async throws -> String {
        guard case .source(let source) = staged.bytes, let opened = source as? OpenSource else { return staged.sha256 }
        // With the digest known, what is left is one `fstat` of an open descriptor: no data is read, so it runs
        // here rather than paying a trip off the pool.
        if !uploaded || !staged.sha256.isEmpty || opened.digestComplete {
            try opened.checkUnchanged()
            return uploaded && staged.sha256.isEmpty ? try opened.sha256() : staged.sha256
        }
        return try await StagingArea.offPool {
            try opened.checkUnchanged()
            guard uploaded, staged.sha256.isEmpty else { return staged.sha256 }
            return try opened.sha256()
        }
    }

    /// Opens a resolved source file for reading in place. Blocks: call off the pool.
    ///
    /// The file is opened without following a final symlink and without blocking (a FIFO cannot hang the open),
    /// and what was opened is checked again through `/proc/self/fd`, so a path swapped for a symlink after
    /// `resolve` cannot lead outside the root.
    static func openSource(_ source: String, root: String?, keptSources: FairSlots?) throws -> OpenSource {
        let input = open(source, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        guard input >= 0 else {
            // Out of descriptors is the worker's own state (open sources are held for a while), not the file's.
            if errno == EMFILE || errno == ENFILE { throw localFailure("cannot open source.path") }
            throw UploadError(.sourceUnresolvable, "cannot open source.path: \(String(cString: strerror(errno)))", retryable: false)
        }
        do {
            var info = stat()
            guard fstat(input, &info) == 0 else { throw localFailure("cannot inspect source.path") }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                break
            case S_IFDIR:
                throw UploadError(.sourceUnresolvable, "source.path is a directory", retryable: false)
            default:
                throw UploadError(.sourceForbidden, "source.path is not a regular file (device, FIFO or socket)", retryable: false)
            }
            if let root, let opened = openedPath(input), !opened.hasPrefix(root + "/") {
                throw UploadError(.sourceForbidden, "source.path resolves outside the source root", retryable: false)
            }
            // Reads of a regular file never block; the flag only kept a swapped-in FIFO from hanging `open`. F_SETFL
            // changes only the status flags, and O_NONBLOCK is the only one this descriptor was opened with.
            _ = fcntl(input, F_SETFL, 0)
            return OpenSource(descriptor: input, info: info, keptSources: keptSources)
        } catch {
            close(input)
            throw error
        }
    }

    /// What the first bytes of a source show, read as a staging copy would have seen them. Blocks.
    private static func sniff(_ source: OpenSource) throws -> ContentSignature? {
        // On the stack: every `path` source is sniffed.
        try withUnsafeTemporaryAllocation(byteCount: ContentSignature.window, alignment: 16) { buffer in
            let wanted = Int(min(Int64(buffer.count), source.size))
            var filled = 0
            while filled < wanted {
                let count = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<wanted]), at: Int64(filled))
                guard count > 0 else { break }
                filled += count
            }
            return ContentSignature.sniff(UnsafeRawBufferPointer(rebasing: buffer[0..<filled]))
        }
    }

    /// The path the kernel has for an open descriptor, from `/proc/self/fd`; nil where that is unavailable.
    private static func openedPath(_ descriptor: Int32) -> String? {
        // On the stack and left unzeroed: a path source runs this once per file, and a zeroed 4 KiB array and its
        // copy cost more than the system call.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(PATH_MAX)) { target in
            let length = readlink("/proc/self/fd/\(descriptor)", target.baseAddress!, target.count)
            guard length > 0 else { return nil }
            return String(decoding: UnsafeRawBufferPointer(start: target.baseAddress, count: length), as: UTF8.self)
        }
    }
}
