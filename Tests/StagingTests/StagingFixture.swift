import Foundation
import HTTPTransport
@testable import Staging
import TestSupport
import UploadEngine


/// A `SourceStaging` in a temporary directory (`staging/`, `sources/`), with its own `HTTPClient` and a loopback
/// `SourceServer`. `stop()` stops the server and removes the directory.
final class StagingFixture: Sendable {
    /// What a test changes.
    struct Options {
        /// `sources.allowHosts`.
        var allowHosts = ["127.0.0.1"]
        /// Whether `sources.resignUrl` points at the fixture server's `/resign`.
        var resign = false
        /// `staging.cacheMax`; nil runs without a cache.
        var cacheMax: Int64?
        /// `sources.stripLocation`.
        var stripLocation = false
        /// An existing directory to run in (a restart); nil creates a fresh one.
        var directory: URL?
        /// `upload.stallTimeout`, the client's no-progress limit and the window of `sources.minSpeed`.
        var stallTimeout: Duration = .seconds(30)
        /// `sources.minSpeed`, bytes per second.
        var minimumSpeed: Int64 = 1024
        /// `sources.fetchTimeout`.
        var fetchTimeout: Duration = .seconds(600)
        /// `staging.maxOpenSources`.
        var maxOpenSources = 4096
        /// Whether `path` sources are hashed when staged (`presign.mode = s3`).
        var signsDigest = false
    }

    let directory: URL
    let server: SourceServer
    let client: HTTPClient
    let stager: SourceStaging

    init(_ options: Options = Options()) async throws {
        directory = options.directory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("attache-staging-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("sources"), withIntermediateDirectories: true)
        server = try SourceServer()
        client = try HTTPClient(configuration: HTTPClient.Configuration(stallTimeout: options.stallTimeout))
        let area = try StagingArea(directory: directory.appendingPathComponent("staging").path)
        let cache = try await options.cacheMax.asyncMap { try await SourceCache.reconciled(in: area, maximumBytes: $0) }
        let settings = SourceStaging.Settings(
            addressPolicy: try AddressPolicy(allowHosts: options.allowHosts),
            resignURL: options.resign ? server.baseURL + "/resign" : nil, stripLocation: options.stripLocation,
            minimumSpeed: options.minimumSpeed, fetchTimeout: options.fetchTimeout,
            maxOpenSources: options.maxOpenSources, signsDigest: options.signsDigest)
        stager = SourceStaging(area: area, sourceRoot: directory.appendingPathComponent("sources").path, client: client, settings: settings, cache: cache)
    }

    /// Stops the server; removes the directory unless `keepingFiles` (to start another fixture on it).
    func stop(keepingFiles: Bool = false) {
        server.stop()
        if !keepingFiles { try? FileManager.default.removeItem(at: directory) }
    }

    /// Where `path` sources live.
    var sourceRoot: URL { directory.appendingPathComponent("sources") }

    /// The staging directory.
    var stagingDirectory: String { stager.area.directory }

    /// The names in the staging directory right now, sorted.
    var stagingFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: stagingDirectory)) ?? []).sorted()
    }

    /// The staging directory's names without the cache's index and entries: what batches hold.
    var stagedFiles: [String] {
        stagingFiles.filter { $0.hasSuffix(".part") }
    }

    /// A URL on the fixture server.
    func url(_ path: String) -> String { server.baseURL + path }

    /// Stages one file.
    func stage(
        _ source: FileSource, mimeType: String? = nil, sizeLimit: Int64 = 1024 * 1024, fileId: String = "f1",
        stripLocation: Bool? = nil, progress: (@Sendable (Int64, Int64) -> Void)? = nil
    ) async throws -> StagedFile {
        try await stager.stage(FileItem(fileId: fileId, name: "file", mimeType: mimeType, source: source, stripLocation: stripLocation),
                               batchId: "batch-1", sizeLimit: sizeLimit, progress: progress)
    }

    /// The `UploadError` staging `source` throws (nil when it stages); a staged copy is released again.
    func stagingError(_ source: FileSource, mimeType: String? = nil, sizeLimit: Int64 = 1024 * 1024) async -> UploadError? {
        do {
            let staged = try await stage(source, mimeType: mimeType, sizeLimit: sizeLimit)
            await stager.release(staged)
            return nil
        } catch let error as UploadError {
            return error
        } catch {
            return UploadError(.init("UNEXPECTED"), "\(error)")
        }
    }

    /// Descriptors the process has open on the fixture's files (sources and staged copies).
    var openDescriptors: Int { OpenDescriptors.count(under: directory.path) }

    /// Writes `bytes` under the source root at `relative`.
    func writeSource(_ relative: String, _ bytes: [UInt8]) throws {
        let url = sourceRoot.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }
}

extension Optional {
    /// `map` with an async throwing transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
