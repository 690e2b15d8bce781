import Foundation
import S3
import UploadEngine

/// `sources.stripLocation`: JPEG GPS metadata removed from the staged bytes before upload.
extension SourceStaging {
    /// The staged file without location metadata: the same file when there is none, else a copy edited in place
    /// (a cached source's bytes are shared with the cache and stay as fetched), with its new digest.
    func eraseLocation(from staged: StagedFile) async throws -> StagedFile {
        let area = area
        let edited: StagedFile? = try await StagingArea.offPool {
            let input = open(staged.path, O_RDONLY | O_CLOEXEC)
            guard input >= 0 else { throw localFailure("cannot reopen a staged file") }
            defer { close(input) }
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
                let (size, sha256) = try Self.digest(of: copy)
                return StagedFile(path: copy, size: size, sha256: sha256, mimeType: staged.mimeType)
            } catch {
                unlink(copy)
                throw error
            }
        }
        guard let edited else { return staged }
        await release(staged)
        return edited
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
