import Foundation
import UploadEngine

/// `path` sources: a regular file that resolves, symlinks included, inside `sources.root`.
extension SourceStaging {
    /// The real path of a `path` source, checked to lie inside the source root. Blocks: call off the pool.
    ///
    /// A path that climbs out of the root by its own `..` components is refused before the file system is asked,
    /// so an escape attempt is refused whether or not its target exists.
    func resolve(_ relative: String) throws -> String {
        guard let root = sourceRoot else {
            throw UploadError(.sourceForbidden, "path sources are not enabled (sources.root)", retryable: false)
        }
        guard !relative.isEmpty, !relative.utf8.contains(0) else {
            throw UploadError(.invalidFileObject, "source.path is empty or contains a NUL byte", retryable: false)
        }
        guard !relative.hasPrefix("/") else {
            throw UploadError(.sourceForbidden, "source.path must be relative to the source root", retryable: false)
        }
        var depth = 0
        for component in relative.split(separator: "/") where component != "." {
            depth += component == ".." ? -1 : 1
            if depth < 0 {
                throw UploadError(.sourceForbidden, "source.path leads outside the source root", retryable: false)
            }
        }
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

    /// Copies a resolved source file through `stream` into a new staging file. Blocks: call off the pool.
    ///
    /// The file is opened without following a final symlink and without blocking (a FIFO cannot hang the copy),
    /// and what was opened is checked again through `/proc/self/fd`, so a path swapped for a symlink after
    /// `resolve` cannot lead outside the root.
    static func copyFile(
        _ source: String, to path: String, stream: StagingStream, progress: StagingProgress, root: String? = nil
    ) throws -> StagingStream.Summary {
        let input = open(source, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        guard input >= 0 else {
            throw UploadError(.sourceUnresolvable, "cannot open source.path: \(String(cString: strerror(errno)))", retryable: false)
        }
        defer { close(input) }
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
        let total = Int64(info.st_size)
        let output = try StagingArea.create(path)
        defer { close(output) }
        _ = try StagingArea.pump(from: input, expectedSize: total, readFailure: localFailure("cannot read source.path")) { chunk, received in
            try stream.consume(chunk)
            try StagingArea.writeAll(output, chunk)
            progress.update(received, of: total)
        }
        return try stream.finish()
    }

    /// The path the kernel has for an open descriptor, from `/proc/self/fd`; nil where that is unavailable.
    private static func openedPath(_ descriptor: Int32) -> String? {
        var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/fd/\(descriptor)", &target, Int(PATH_MAX))
        guard length > 0 else { return nil }
        return String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
