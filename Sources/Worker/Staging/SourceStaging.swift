import Foundation
import HTTPTransport
import UploadEngine

/// Copies a file's source into the staging area: inline data, a path under `sources.root`, or an http(s) URL.
///
/// The size limit is enforced while bytes arrive, the SHA-256 is computed on the way, and a partial copy is removed
/// on any failure or cancellation.
public struct SourceStaging: SourceStager {
    public let area: StagingArea
    /// Root for `path` sources (resolved, symlinks included); nil turns path sources off.
    public let sourceRoot: String?
    let client: HTTPClient

    public init(area: StagingArea, sourceRoot: String?, client: HTTPClient) {
        self.area = area
        self.sourceRoot = sourceRoot.flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }
        self.client = client
    }

    public func stage(_ file: FileItem, batchId: String, sizeLimit: Int64) async throws -> StagedFile {
        let path = area.newPath()
        do {
            let (size, digest) = try await copy(file.source, to: path, sizeLimit: sizeLimit)
            try Task.checkCancellation()
            return StagedFile(path: path, size: size, sha256: digest, mimeType: file.mimeType)
        } catch {
            unlink(path)
            throw error
        }
    }

    public func release(_ staged: StagedFile) async {
        unlink(staged.path)
    }

    private func copy(_ source: FileSource, to path: String, sizeLimit: Int64) async throws -> (Int64, String) {
        switch source {
        case .data(let bytes):
            return try await StagingArea.offPool {
                let fd = try StagingArea.create(path)
                defer { close(fd) }
                try bytes.withUnsafeBytes { try StagingArea.writeAll(fd, $0) }
                return (Int64(bytes.count), SHA256Hasher.hex(of: bytes))
            }
        case .path(let relative):
            let resolved = try resolve(relative)
            return try await StagingArea.offPool { try Self.copyFile(resolved, to: path, sizeLimit: sizeLimit) }
        case .url(let url):
            return try await download(url, to: path, sizeLimit: sizeLimit)
        case .oversizedData, .malformed:
            throw UploadError(.invalidFileObject, "the source cannot be staged", retryable: false)
        }
    }

    /// A `path` source must resolve, symlinks included, inside the source root.
    func resolve(_ relative: String) throws -> String {
        guard let root = sourceRoot else {
            throw UploadError(.sourceForbidden, "path sources are not enabled (sources.root)", retryable: false)
        }
        guard !relative.hasPrefix("/") else {
            throw UploadError(.sourceForbidden, "source.path must be relative to the source root", retryable: false)
        }
        let candidate = URL(fileURLWithPath: root).appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: candidate.path) else {
            throw UploadError(.sourceUnresolvable, "no file at source.path", retryable: false)
        }
        let resolved = candidate.resolvingSymlinksInPath().path
        guard resolved.hasPrefix(root + "/") else {
            throw UploadError(.sourceForbidden, "source.path resolves outside the source root", retryable: false)
        }
        return resolved
    }

    static func copyFile(_ source: String, to path: String, sizeLimit: Int64) throws -> (Int64, String) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw UploadError(.sourceUnresolvable, "cannot open source.path", retryable: false) }
        defer { close(input) }
        var info = stat()
        guard fstat(input, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw UploadError(.sourceUnresolvable, "source.path is not a regular file", retryable: false)
        }
        let output = try StagingArea.create(path)
        defer { close(output) }
        let hasher = SHA256Hasher()
        let total = try StagingArea.pump(from: input, readFailure: UploadError(.sourceFetchFailed, "cannot read source.path", retryable: true)) { chunk, total in
            if total > sizeLimit {
                throw UploadError(.fileSizeExceeded, "the file exceeds limits.fileSizeMax (\(sizeLimit))", retryable: false)
            }
            hasher.update(chunk)
            try StagingArea.writeAll(output, chunk)
        }
        return (total, hasher.finalizeHex())
    }

    private func download(_ url: String, to path: String, sizeLimit: Int64) async throws -> (Int64, String) {
        guard let scheme = URL(string: url)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw UploadError(.sourceForbidden, "only http and https sources are fetched", retryable: false)
        }
        let response: HTTPResponse
        do {
            response = try await client.download(HTTPRequest(method: "GET", url: url), toFile: path, sizeLimit: sizeLimit)
        } catch let error as HTTPTransportError {
            if error.code == .sizeLimitExceeded {
                throw UploadError(.fileSizeExceeded, "the source exceeds limits.fileSizeMax (\(sizeLimit))", retryable: false)
            }
            throw UploadError(.sourceFetchFailed, "fetching the source failed: \(error.message)", retryable: error.isRetryable || error.code == .transport,
                              retryAfter: error.retryAfter)
        }
        switch response.status {
        case 200..<300:
            return try await StagingArea.offPool { try Self.digest(of: path) }
        case 401, 403, 404, 410:
            throw UploadError(.sourceUnresolvable, "the source answered HTTP \(response.status)", retryable: false)
        case 500..<600, 408, 429:
            throw UploadError(.sourceFetchFailed, "the source answered HTTP \(response.status)", retryable: true,
                              retryAfter: RetryAfter.parse(response, now: Date()))
        default:
            throw UploadError(.sourceUnresolvable, "the source answered HTTP \(response.status)", retryable: false)
        }
    }

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
