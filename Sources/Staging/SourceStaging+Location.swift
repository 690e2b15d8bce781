import Foundation
import S3
import UploadEngine

/// `sources.stripLocation`: JPEG GPS metadata removed from the staged bytes before upload.
extension SourceStaging {
    /// The staged file without location metadata: the same file when there is none, else a copy edited in place
    /// (a cached source's bytes are shared with the cache and stay as fetched, and a `path` source is the user's
    /// file: the one case where a path source is copied), with its new digest.
    func eraseLocation(from staged: StagedFile) async throws -> StagedFile {
        let area = area
        let edited: StagedFile? = try await StagingArea.offPool {
            try Self.withDescriptor(of: staged) { try Self.strippedCopy(of: $0, staged: staged, in: area) }
        }
        guard let edited else { return staged }
        await release(staged)
        return edited
    }

    /// A new staging copy of the bytes `input` reads, with their location erased; nil when they have none. Blocks:
    /// call off the pool.
    private static func strippedCopy(of input: Int32, staged: StagedFile, in area: StagingArea) throws -> StagedFile? {
        // A first pass only looks, so a file without location is neither copied nor rewritten.
        guard try LocationMetadata.erase(in: input, changed: nil) else { return nil }
        let copy = area.newPath()
        do {
            let output = try StagingArea.create(copy)
            defer { close(output) }
            _ = try StagingArea.pump(from: input, expectedSize: staged.size, readFailure: localFailure("cannot read a staged file")) { chunk, _ in
                try StagingArea.writeAll(output, chunk)
            }
            _ = try LocationMetadata.erase(in: input) { payload, offset in
                let written = pwrite(output, payload.baseAddress, payload.count, off_t(offset))
                guard written == payload.count else { throw localFailure("cannot edit a staged file") }
            }
            let (size, sha256) = try digest(of: copy)
            return StagedFile(path: copy, size: size, sha256: sha256, mimeType: staged.mimeType)
        } catch {
            unlink(copy)
            throw error
        }
    }

    /// Runs `body` with a descriptor to read a staged file through: a copy opened for it, or an open source's own.
    /// Blocks: call off the pool.
    private static func withDescriptor<T>(of staged: StagedFile, _ body: (Int32) throws -> T) throws -> T {
        switch staged.bytes {
        case .copy(let path):
            let input = open(path, O_RDONLY | O_CLOEXEC)
            guard input >= 0 else { throw localFailure("cannot reopen a staged file") }
            defer { close(input) }
            return try body(input)
        case .source(let source):
            guard let opened = source as? OpenSource else { throw localFailure("cannot read a source this stager did not open") }
            return try opened.withDescriptor(body)
        }
    }

    /// Size and hex SHA-256 of a staged file. Blocks: call off the pool.
    static func digest(of path: String) throws -> (Int64, String) {
        let input = open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw localFailure("cannot reopen a staged file") }
        defer { close(input) }
        let hasher = SHA256Hasher()
        let total = try StagingArea.pump(from: input, readFailure: localFailure("cannot read a staged file")) { chunk, _ in
            hasher.update(chunk)
        }
        return (total, hasher.finalizeHex())
    }
}
