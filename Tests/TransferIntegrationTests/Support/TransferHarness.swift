import DevServices
import Foundation
import HTTPTransport
import S3
import Staging
import TestSupport
import Testing
import UploadEngine
import Worker

/// What one integration test runs: the embedded services on loopback, one shared `HTTPClient`, the Worker's
/// `SourceStaging` in a temporary directory, and a `BatchRunner` over the real `PresignEndpointClient` and
/// `CurlUploader`, on the real clock, with every event recorded. `stop()` tears it all down.
final class TransferHarness: Sendable {
    /// What a test changes.
    struct Options {
        /// `retry.maxAttempts`; 1 settles a file on its first failure. Retries wait 50–200 ms.
        var maxAttempts = 1
        /// `upload.stallTimeout`, given to the engine, the client and the uploader alike.
        var stallTimeout: Duration = .seconds(30)
        /// `limits.fileSizeMax`.
        var fileSizeMax: Int64 = 100 * 1024 * 1024
        /// Files of the batch in flight at once.
        var concurrency = 1
        /// The services' own settings (presign policy, …).
        var services = EmbeddedServices.Configuration()
        /// The presigner the engine uses, made from the real presign client.
        var presigner: @Sendable (PresignEndpointClient) -> any Presigner = { $0 }
        /// `sources.allowHosts`: the services and source servers run on 127.0.0.1.
        var allowHosts = ["127.0.0.1"]
        /// `sources.resignUrl`; nil re-signs nothing.
        var resignURL: String?
        /// `sources.minSpeed`, bytes per second over a stall window.
        var minimumSpeed: Int64 = 1024
        /// `sources.fetchTimeout`.
        var fetchTimeout: Duration = .seconds(600)
        /// `presign.timeout`, the limit on each presign call.
        var presignTimeout: Duration = .seconds(30)
        /// How long files that are ready wait for the rest of their cohort before they are presigned without them.
        var presignGatherWindow = EngineConfiguration().presignGatherWindow
        /// `staging.maxOpenSources`.
        var maxOpenSources = 4096
        /// Whether the presigner signs each file's digest into its upload (`presign.mode = s3`).
        var signsDigest = false
    }

    static let batchId = "trip-42"
    static let requestId = "req-1"

    let services: EmbeddedServices
    let client: HTTPClient
    let runner: BatchRunner
    let stager: SourceStaging
    let recorder = EventRecorder()
    /// Holds `staging/` and `sources/`.
    let directory: URL

    /// Starts the services and builds the runner.
    init(_ options: Options = Options()) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("attache-transfer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("sources"), withIntermediateDirectories: true)
        services = try EmbeddedServices(configuration: options.services)
        client = try HTTPClient(configuration: .init(stallTimeout: options.stallTimeout))
        var engine = EngineConfiguration()
        engine.retry = RetryPolicy(maxAttempts: options.maxAttempts, baseDelay: .milliseconds(50), maxDelay: .milliseconds(200))
        engine.stallTimeout = options.stallTimeout
        engine.limits.fileSizeMax = options.fileSizeMax
        engine.concurrency = options.concurrency
        engine.presignGatherWindow = options.presignGatherWindow
        let batch = UploadBatch(
            context: BatchContext(batchId: Self.batchId, receiver: Receiver(id: "cometchat-uid-1", type: .user)),
            configuration: engine)
        stager = SourceStaging(
            area: try StagingArea(directory: directory.appendingPathComponent("staging").path),
            sourceRoot: directory.appendingPathComponent("sources").path, client: client,
            settings: SourceStaging.Settings(
                addressPolicy: try AddressPolicy(allowHosts: options.allowHosts), resignURL: options.resignURL,
                minimumSpeed: options.minimumSpeed, fetchTimeout: options.fetchTimeout,
                maxOpenSources: options.maxOpenSources, signsDigest: options.signsDigest))
        runner = BatchRunner(
            batch: batch,
            presigner: options.presigner(PresignEndpointClient(url: services.presignURL, client: client, timeout: options.presignTimeout)),
            uploader: CurlUploader(client: client, stallTimeout: options.stallTimeout), stager: stager)
        runner.setGlobalObserver(recorder.observer)
    }

    /// Stops every task, then the services, and removes the files.
    func stop() {
        runner.abandon()
        services.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Adds `items` to the batch and returns the result of the `completed` event that follows.
    func run(_ items: [FileItem]) async -> UploadResult? {
        runner.upload(items, requestId: Self.requestId)
        await recorder.waitForCompletions(1)
        return completions.last
    }

    /// The results of every `completed` event so far.
    var completions: [UploadResult] {
        recorder.events.compactMap { if case .completed(let result) = $0.kind { result } else { nil } }
    }

    /// Where `path` sources live.
    var sourceRoot: URL { directory.appendingPathComponent("sources") }

    /// Descriptors the process has open on the harness's files (sources and staged copies) right now.
    var openDescriptors: Int { OpenDescriptors.count(under: directory.path) }

    /// Writes `bytes` under the source root at `relative`.
    func writeSource(_ relative: String, _ bytes: Data) throws {
        try bytes.write(to: sourceRoot.appendingPathComponent(relative))
    }

    /// The files in the staging directory right now.
    var stagedFiles: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("staging").path)) ?? []
    }

    /// The key the presign service gives a file of the batch.
    func key(fileId: String, name: String) -> String {
        ObjectKeyLayout.key(batchId: Self.batchId, fileId: fileId, name: name)
    }

    /// Stores `bytes` in the object store under `key` with a signed PUT; returns the public URL to fetch them from.
    func putSource(_ bytes: Data, key: String) async throws -> String {
        let path = directory.appendingPathComponent("upload-\(UUID().uuidString)").path
        try bytes.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let url = try services.store.signedURL(method: "PUT", key: key, expiresAt: Date().addingTimeInterval(600))
        let response = try await client.upload(fromFile: path, request: HTTPRequest(method: "PUT", url: url))
        guard response.isSuccess else { throw HarnessFailure("storing the source answered \(response.status)") }
        return try services.store.url(forKey: key)
    }
}

/// A failure of the test setup itself.
struct HarnessFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
