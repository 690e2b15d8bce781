import Foundation
import HTTPTransport
import UploadEngine

/// Copies a file's source into the staging area: inline data, a path under `sources.root`, or an http(s) URL.
///
/// Every byte goes through a `StagingStream` as it arrives: the size limit is enforced, the SHA-256 computed and
/// the first bytes sniffed (a declared mime type they contradict rejects the file). URL sources resolve through
/// the URL — linking the cached copy instead when the origin confirms it for that URL — then one re-signed URL,
/// only ever connect to addresses the address policy allows, and are bounded in speed and time. A partial copy is removed on any failure or cancellation. See `docs/sources.md` for every rule.
public struct SourceStaging: SourceStager {
    /// Where files are staged.
    public let area: StagingArea
    /// Root for `path` sources (resolved, symlinks included); nil turns path sources off.
    public let sourceRoot: String?
    /// The address policy, the re-sign endpoint and location stripping.
    public let settings: Settings
    /// Fetched URL sources kept between batches; nil keeps none.
    public let cache: SourceCache?
    /// The worker's shared client: source downloads and re-sign calls.
    let client: HTTPClient

    /// A stager; without `settings` URL sources may reach public addresses only, nothing is re-signed and no
    /// location is stripped.
    public init(area: StagingArea, sourceRoot: String?, client: HTTPClient, settings: Settings = Settings(),
                cache: SourceCache? = nil) {
        self.area = area
        self.sourceRoot = sourceRoot.flatMap { root in
            root.isEmpty ? nil : URL(fileURLWithPath: root).resolvingSymlinksInPath().standardizedFileURL.path
        }
        self.settings = settings
        self.cache = cache
        self.client = client
    }

    /// Stages `file` without reporting progress (the engine's entry point).
    public func stage(_ file: FileItem, batchId: String, sizeLimit: Int64) async throws -> StagedFile {
        try await stage(file, batchId: batchId, sizeLimit: sizeLimit, progress: nil)
    }

    /// Stages `file`, reporting progress.
    ///
    /// - Parameter progress: `(received, total)` as bytes arrive, only while the total is known (a download with
    ///   `Content-Length`, a file on disk, a cache hit), never going backwards; on a staging or transfer thread,
    ///   so keep it short.
    public func stage(
        _ file: FileItem, batchId: String, sizeLimit: Int64,
        progress: (@Sendable (_ received: Int64, _ total: Int64) -> Void)?
    ) async throws -> StagedFile {
        let path = area.newPath()
        let report = StagingProgress(progress)
        do {
            var staged = try await copy(file, batchId: batchId, to: path, sizeLimit: sizeLimit, progress: report)
            try Task.checkCancellation()
            if file.stripLocation ?? settings.stripLocation {
                staged = try await eraseLocation(from: staged)
            }
            try Task.checkCancellation()
            return staged
        } catch {
            await discard(path)
            throw error
        }
    }

    /// Deletes the staged file; a cached source's entry is unpinned and may then be evicted.
    public func release(_ staged: StagedFile) async {
        await discard(staged.path)
    }

    /// Deletes the staged file on the staging queue, without a task or a wait: the engine gives every uploaded
    /// file back this way.
    public func releaseInBackground(_ staged: StagedFile) {
        let cache = cache
        let path = staged.path
        StagingArea.queue.async { Self.delete(path, cache: cache) }
    }

    /// Deletes a staged file, unpinning the cache entry it shares bytes with.
    private func discard(_ path: String) async {
        let cache = cache
        _ = try? await StagingArea.offPool { Self.delete(path, cache: cache) }
    }

    private static func delete(_ path: String, cache: SourceCache?) {
        if let cache { cache.release(path) } else { unlink(path) }
    }

    private func copy(
        _ file: FileItem, batchId: String, to path: String, sizeLimit: Int64, progress: StagingProgress
    ) async throws -> StagedFile {
        let stream = StagingStream(sizeLimit: sizeLimit, declaredType: file.mimeType)
        let summary: StagingStream.Summary
        switch file.source {
        case .data(let bytes):
            summary = try await StagingArea.offPool {
                let fd = try StagingArea.create(path)
                defer { close(fd) }
                try bytes.withUnsafeBytes { buffer in
                    try stream.consume(buffer)
                    try StagingArea.writeAll(fd, buffer)
                }
                return try stream.finish()
            }
        case .path(let relative):
            summary = try await StagingArea.copySlots.run {
                try await StagingArea.offPool { [self] in
                    try Self.copyFile(try resolve(relative), to: path, stream: stream, progress: progress, root: sourceRoot)
                }
            }
        case .url(let url):
            return try await stageURL(try SourceURL(url), file: file, batchId: batchId, to: path, stream: stream, progress: progress)
        case .oversizedData(let count):
            throw UploadError(.fileSizeExceeded, "the inline data (\(count) bytes) exceeds limits.inlineMax", retryable: false)
        case .malformed(let reason):
            throw UploadError(.invalidFileObject, "the source cannot be staged: \(reason)", retryable: false)
        case .releasedData:
            // The engine releases inline bytes only of files it never stages again; reaching here is a bug.
            throw UploadError(.invalidFileObject, "the inline data was already released", retryable: false)
        }
        return StagedFile(path: path, size: summary.size, sha256: summary.sha256,
                          mimeType: ContentSignature.stagedType(declared: file.mimeType, shown: summary.signature))
    }
}
