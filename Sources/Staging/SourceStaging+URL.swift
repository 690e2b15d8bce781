import Foundation
import HTTPTransport
import UploadEngine

/// `url` sources: the URL (revalidating a cached copy), then — on 401, 403 or 410 — exactly one re-signed URL.
extension SourceStaging {
    /// How one GET of a source ended, when it did not stage the bytes.
    enum FetchRefusal: Error {
        /// 401, 403 or 410: the URL may have expired; a re-signed one may work.
        case expired(status: Int)
    }

    /// What one GET of a source brought.
    enum Fetched {
        /// A 2xx: the bytes are in the file, with the answer's validator (if any) for the cache.
        case bytes(StagingStream.Summary, SourceValidator?)
        /// A 304 to a conditional GET: the cached entry it named is still what the URL serves.
        case notModified
    }

    /// Stages a URL source into `path`: fetched (and re-signed once if it must be), or — when the cache holds the
    /// object and the origin confirms it for this very URL — linked from the cache.
    func stageURL(
        _ source: SourceURL, file: FileItem, batchId: String, to path: String, stream: StagingStream,
        progress: StagingProgress
    ) async throws -> StagedFile {
        do {
            return try await resolve(source, file: file, to: path, stream: stream, progress: progress)
        } catch FetchRefusal.expired(let status) {
            guard let endpoint = settings.resignURL else {
                throw UploadError(.sourceUnresolvable, "the source answered HTTP \(status)", retryable: false)
            }
            let fresh = try await SourceResigner(endpoint: endpoint, client: client)
                .resign(source.text, batchId: batchId, fileId: file.fileId)
            let retry = StagingStream(sizeLimit: stream.sizeLimit, declaredType: stream.declaredType)
            do {
                return try await resolve(try SourceURL(fresh), file: file, to: path, stream: retry, progress: progress)
            } catch FetchRefusal.expired(let again) {
                throw UploadError(.sourceUnresolvable, "the re-signed source answered HTTP \(again)", retryable: false)
            }
        }
    }

    /// One URL: a GET — conditional when the cache has the object with a validator — whose 304 checks the cached
    /// entry out and whose 2xx stages the answer and replaces the entry.
    ///
    /// - Throws: `FetchRefusal.expired` for 401/403/410 (the cache is never the fallback for a refused URL).
    private func resolve(
        _ source: SourceURL, file: FileItem, to path: String, stream: StagingStream, progress: StagingProgress
    ) async throws -> StagedFile {
        let key = source.cacheKey
        // The lookup takes the cache's lock, which file operations hold: off the cooperative pool like the rest.
        var cached: SourceCacheEntry?
        if let cache { cached = try await StagingArea.offPool { cache.revalidation(for: key) } }
        while true {
            switch try await fetch(source.text, validator: cached?.validator, to: path, stream: stream, progress: progress) {
            case .notModified:
                if let cache, let entry = cached, let hit = try await checkOut(entry, from: cache, to: path, stream: stream) {
                    progress.update(hit.size, of: hit.size)
                    return hit
                }
                // The confirmed entry was replaced or evicted meanwhile: ask again, without a validator.
                cached = nil
            case .bytes(let summary, let validator):
                if let cache {
                    try await StagingArea.offPool {
                        cache.keep(key, stagedAt: path, size: summary.size, sha256: summary.sha256,
                                   signature: summary.signature, validator: validator)
                    }
                }
                return StagedFile(path: path, size: summary.size, sha256: summary.sha256,
                                  mimeType: ContentSignature.stagedType(declared: file.mimeType, shown: summary.signature))
            }
        }
    }

    /// The confirmed cache entry linked to `path`, if it is still in the cache and passes this file's checks (size
    /// limit, declared type); a hit that fails them is given back and rejected like a download would be.
    private func checkOut(
        _ confirmed: SourceCacheEntry, from cache: SourceCache, to path: String, stream: StagingStream
    ) async throws -> StagedFile? {
        guard let entry = try await StagingArea.offPool({ cache.checkOut(confirmed.key, file: confirmed.file, to: path) }) else {
            return nil
        }
        let shown = entry.sniffedType.flatMap(ContentSignature.init(mimeType:))
        if entry.size > stream.sizeLimit {
            throw UploadError(.fileSizeExceeded, "the source exceeds limits.fileSizeMax (\(stream.sizeLimit))", retryable: false)
        }
        if let contradiction = StagingStream.contradiction(declared: stream.declaredType, shown: shown) {
            throw contradiction
        }
        return StagedFile(path: path, size: entry.size, sha256: entry.sha256,
                          mimeType: ContentSignature.stagedType(declared: stream.declaredType, shown: shown))
    }

    /// One guarded GET into `path`, following at most 3 redirects; every byte goes through `stream`. With a
    /// validator the GET is conditional, and a 304 stages nothing. The GET is bounded by `sources.fetchTimeout` and
    /// by `sources.minSpeed` over the stall window; either failing is a retryable `ERR_SOURCE_FETCH_FAILED`.
    ///
    /// - Throws: `FetchRefusal.expired` for 401/403/410; otherwise an `UploadError` with the source's code.
    func fetch(
        _ url: String, validator: SourceValidator?, to path: String, stream: StagingStream, progress: StagingProgress
    ) async throws -> Fetched {
        let response: HTTPResponse
        do {
            response = try await client.download(
                HTTPRequest(method: "GET", url: url, headers: validator.map { [$0.conditionalHeader] } ?? [],
                            timeout: settings.fetchTimeout, minimumSpeed: settings.minimumSpeed, followRedirects: true),
                toFile: path, sizeLimit: stream.sizeLimit,
                addressPolicy: settings.addressPolicy, progress: { received, total in progress.update(received, of: total) },
                inspect: { chunk in try stream.consume(chunk) })
        } catch let error as HTTPTransportError {
            throw Self.sourceError(error, sizeLimit: stream.sizeLimit)
        }
        switch response.status {
        case 200..<300:
            let summary = try stream.finish()
            try await StagingArea.offPool {
                var info = stat()
                guard stat(path, &info) == 0, Int64(info.st_size) == summary.size else {
                    throw UploadError(.sourceFetchFailed, "the staged source does not have the size received", retryable: true)
                }
            }
            return .bytes(summary, SourceValidator(response))
        case 304 where validator != nil:
            return .notModified
        case 401, 403, 410:
            throw FetchRefusal.expired(status: response.status)
        case _ where response.isRetryable:
            throw UploadError(.sourceFetchFailed, "the source answered HTTP \(response.status)", retryable: true,
                              retryAfter: RetryAfter.parse(response, now: Date()))
        default:
            throw UploadError(.sourceUnresolvable, "the source answered HTTP \(response.status)", retryable: false)
        }
    }

    /// The source error for a download that failed in the HTTP layer.
    static func sourceError(_ error: HTTPTransportError, sizeLimit: Int64) -> UploadError {
        switch error.code {
        case .sizeLimitExceeded:
            UploadError(.fileSizeExceeded, "the source exceeds limits.fileSizeMax (\(sizeLimit))", retryable: false)
        case .addressRefused, .redirectRefused:
            UploadError(.sourceForbidden, error.message, retryable: false)
        case .tooManyRedirects:
            UploadError(.sourceUnresolvable, error.message, retryable: false)
        case .invalidURL:
            UploadError(.invalidFileObject, "source.url: \(error.message)", retryable: false)
        default:
            UploadError(.sourceFetchFailed, "fetching the source failed: \(error.message)", retryable: true,
                        retryAfter: error.retryAfter)
        }
    }
}
