import CLinux
import Foundation
import HTTPTransport
import UploadEngine

/// Stages a file's source: copies inline data or an http(s) URL into the staging area, and opens a path under
/// `sources.root` to be read in place (never copied).
///
/// Every copied byte goes through a `StagingStream` as it arrives: the size limit is enforced, the SHA-256 computed
/// and the first bytes sniffed (a declared mime type they contradict rejects the file); an open source gets the same
/// checks on the opened file. URL sources resolve through the URL — linking the cached copy instead when the origin
/// confirms it for that URL — then one re-signed URL, only ever connect to addresses the address policy allows, and
/// are bounded in speed and time. A partial copy is removed on any failure or cancellation. See `docs/sources.md`
/// for every rule.
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
    /// The cap on sources failed files hold open (`staging.maxOpenSources`), shared by every copy of the stager;
    /// nil holds none.
    let keptSources: FairSlots?
    /// Whether small `path` sources may be looked at on the calling task (`lookInMemory`): the source root is on a
    /// local file system, where an open whose path is cached waits for nothing.
    let looksInMemory: Bool
    /// Reads the inline bytes of a file back from the jobs-topic record that carried them (a file restored from a
    /// snapshot, whose bytes stayed with its previous owner); nil when the record is no longer in the topic.
    public var recordedBytes: (@Sendable (RecordOrigin) async throws -> Data?)?

    /// A stager; without `settings` URL sources may reach public addresses only, nothing is re-signed and no
    /// location is stripped.
    public init(area: StagingArea, sourceRoot: String?, client: HTTPClient, settings: Settings = Settings(),
                cache: SourceCache? = nil) {
        self.area = area
        self.sourceRoot = sourceRoot.flatMap { root in
            root.isEmpty ? nil : URL(fileURLWithPath: root).resolvingSymlinksInPath().standardizedFileURL.path
        }
        looksInMemory = self.sourceRoot.map { attache_file_system_kind_at($0) > 0 } ?? false
        self.settings = settings
        self.cache = cache
        self.client = client
        keptSources = settings.maxOpenSources > 0 ? FairSlots(capacity: settings.maxOpenSources) : nil
    }

    /// Sources failed files hold open right now.
    public var sourcesKeptOpen: Int { keptSources?.heldCount ?? 0 }

    /// Stages `file` without reporting progress (the engine's entry point).
    public func stage(_ file: FileItem, batchId: String, sizeLimit: Int64) async throws -> StagedFile {
        try await stage(file, batchId: batchId, sizeLimit: sizeLimit, progress: nil)
    }

    /// Stages a file whose multipart upload an earlier attempt started (the engine's entry point): a `path` source
    /// whose size and modification time are those the upload recorded takes the upload's digest instead of being
    /// read whole to compute it again (DESIGN §12 *Resume across workers*).
    public func stage(_ file: FileItem, batchId: String, sizeLimit: Int64, resuming upload: MultipartUpload?) async throws
        -> StagedFile {
        try await stage(file, batchId: batchId, sizeLimit: sizeLimit, progress: nil, resuming: upload)
    }

    /// Stages `file`, reporting progress.
    ///
    /// - Parameters:
    ///   - progress: `(received, total)` as bytes arrive, only while the total is known (a download with
    ///     `Content-Length`, a file on disk, a cache hit), never going backwards; on a staging or transfer thread,
    ///     so keep it short.
    ///   - resuming: the multipart upload an earlier attempt started, whose digest a `path` source of the version it
    ///     recorded takes.
    public func stage(
        _ file: FileItem, batchId: String, sizeLimit: Int64,
        progress: (@Sendable (_ received: Int64, _ total: Int64) -> Void)?, resuming: MultipartUpload? = nil
    ) async throws -> StagedFile {
        let report = StagingProgress(progress)
        var staged: StagedFile
        if case .path(let relative) = file.source {
            staged = try await stageInPlace(relative, file: file, sizeLimit: sizeLimit, progress: report,
                                            resuming: resuming)
        } else {
            let path = area.newPath()
            do {
                staged = try await copy(file, batchId: batchId, to: path, sizeLimit: sizeLimit, progress: report)
            } catch {
                await discard(path)
                throw error
            }
        }
        do {
            try Task.checkCancellation()
            if file.stripLocation ?? settings.stripLocation {
                staged = try await eraseLocation(from: staged)
            }
            try Task.checkCancellation()
            return staged
        } catch {
            await release(staged)
            throw error
        }
    }

    /// Deletes a staged copy (a cached source's entry is unpinned and may then be evicted), or closes an open
    /// source (once the reads under way end).
    public func release(_ staged: StagedFile) async {
        let cache = cache
        _ = try? await StagingArea.offPool { Self.give(back: staged.bytes, cache: cache) }
    }

    /// `release` without a task or a wait: the engine gives every uploaded file back this way. A copy is deleted on
    /// the staging queue (an unlink can block); an open source is given back here, since closing a descriptor does
    /// not block and a trip to the queue cost more than the close (a block, and a thread woken, per small job).
    public func releaseInBackground(_ staged: StagedFile) {
        if case .source = staged.bytes { return Self.give(back: staged.bytes, cache: nil) }
        let cache = cache
        StagingArea.queue.async { Self.give(back: staged.bytes, cache: cache) }
    }

    private static func give(back bytes: StagedBytes, cache: SourceCache?) {
        switch bytes {
        case .copy(let path): delete(path, cache: cache)
        case .source(let source): (source as? OpenSource)?.release()
        }
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
        var source = file.source
        if case .recorded(let origin, _) = source { source = .data(try await readBack(origin)) }
        switch source {
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
        case .path:
            // Never copied: `stage` opens it in place.
            throw UploadError(.invalidFileObject, "a path source is not copied", retryable: false)
        case .url(let url):
            return try await stageURL(try SourceURL(url), file: file, batchId: batchId, to: path, stream: stream, progress: progress)
        case .oversizedData(let count):
            throw UploadError(.fileSizeExceeded, "the inline data (\(count) bytes) exceeds limits.inlineMax", retryable: false)
        case .malformed(let reason):
            throw UploadError(.invalidFileObject, "the source cannot be staged: \(reason)", retryable: false)
        case .releasedData, .recorded:
            // Inline bytes that are neither here nor in a record that can be read back (a snapshot without one).
            throw UploadError(.sourceUnresolvable, "the inline data is no longer available", retryable: false)
        }
        return StagedFile(path: path, size: summary.size, sha256: summary.sha256,
                          mimeType: ContentSignature.stagedType(declared: file.mimeType, shown: summary.signature))
    }

    /// The inline bytes of a restored file, from the job record that carried them.
    private func readBack(_ origin: RecordOrigin) async throws -> Data {
        let bytes: Data?
        do {
            bytes = try await recordedBytes?(origin)
        } catch let error as UploadError {
            throw error
        } catch {
            throw UploadError(.sourceFetchFailed, "reading the inline data back from the jobs topic failed: \(error)", retryable: true)
        }
        guard let bytes else {
            throw UploadError(.sourceUnresolvable, "the job record that carried the inline data (partition \(origin.partition), " +
                              "offset \(origin.offset)) is no longer in the jobs topic", retryable: false)
        }
        return bytes
    }
}
