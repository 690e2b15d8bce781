import Foundation
import HTTPTransport
import KafkaIO
import S3
import Staging
import UploadEngine

/// The collaborators a worker is built from, made from its configuration.
struct WorkerComponents: Sendable {
    let client: HTTPClient
    var stager: SourceStaging
    let presigner: any Presigner
    let uploader: any Uploader
    /// Attache's own bucket (`presign.mode = s3`); nil with a presign endpoint.
    let storage: S3Storage?
    /// The deadlines of all the worker's batches, kept by one timer.
    let timers = DeadlineScheduler(clock: SystemClock())
    /// The transfer slots all the worker's batches share, fairly across tenants.
    let shares: TransferShares

    /// Builds the components; the staging directory is reconciled against the source cache's index first.
    static func make(configuration: AttacheConfiguration, metrics: WorkerMetrics = WorkerMetrics()) async throws -> WorkerComponents {
        let area = try StagingArea(directory: configuration.staging.dir)
        let cache = try await SourceCache.reconciled(in: area, maximumBytes: configuration.staging.cacheMax)
        return try WorkerComponents(configuration: configuration, metrics: metrics, area: area, cache: cache)
    }

    init(configuration: AttacheConfiguration, metrics: WorkerMetrics, area: StagingArea, cache: SourceCache) throws {
        var http = HTTPClient.Configuration()
        http.maxConcurrentTransfers = configuration.worker.maxTransfers
        http.stallTimeout = configuration.upload.stallTimeout
        http.maxUploadBytesPerSecond = configuration.upload.maxBytesPerSecond
        http.maxUploadBytesPerSecondPerTenant = configuration.upload.maxBytesPerSecondPerTenant
        client = try HTTPClient(configuration: http)
        let worker = configuration.worker
        shares = TransferShares(policy: .init(capacity: worker.maxTransfers, weights: worker.tenantWeights,
                                              maxPerTenant: worker.tenantMaxTransfers == 0 ? .max : worker.tenantMaxTransfers),
                                queueMark: worker.maxQueuedFiles)
        let sources = configuration.sources
        let settings = SourceStaging.Settings(
            addressPolicy: try AddressPolicy(allowHosts: sources.allowHosts), resignURL: sources.resignUrl,
            stripLocation: sources.stripLocation, minimumSpeed: sources.minSpeed, fetchTimeout: sources.fetchTimeout,
            maxOpenSources: configuration.staging.maxOpenSources,
            // S3 storage verifies the SHA-256 signed into each upload (`x-amz-checksum-sha256`).
            signsDigest: configuration.presign.mode == .s3)
        stager = SourceStaging(area: area, sourceRoot: sources.root.isEmpty ? nil : sources.root, client: client,
                               settings: settings, cache: cache)
        switch configuration.presign.mode {
        case .endpoint:
            presigner = PresignEndpointClient(url: configuration.presign.url, client: client, timeout: configuration.presign.timeout)
            uploader = TimedUploader(inner: CurlUploader(client: client, stallTimeout: configuration.upload.stallTimeout), metrics: metrics)
            storage = nil
        case .s3:
            // Attache owns the storage: S3Storage presigns, uploads (multipart above the threshold) and deletes.
            let storage = try configuration.s3Storage(client: client)
            presigner = storage
            uploader = TimedUploader(inner: storage, metrics: metrics)
            self.storage = storage
        }
    }

    /// The sender for `messages.mode`; nil when messages are off.
    func sender(configuration: AttacheConfiguration, producer: KafkaProducer) -> (any MessageSender)? {
        switch configuration.messages.mode {
        case .http: HTTPMessageSender(url: configuration.messages.url, apiKey: configuration.messages.apiKey, client: client)
        case .kafka: KafkaMessageSender(producer: producer, topic: configuration.kafka.messagesTopic)
        case .none: nil
        }
    }

    func makeRunner(_ batch: UploadBatch, poster: (any MessagePoster)?) -> BatchRunner {
        BatchRunner(batch: batch, presigner: presigner, uploader: uploader, stager: stager, poster: poster, timers: timers,
                    shares: shares)
    }
}

extension AttacheConfiguration {
    /// The bucket of `presign.mode = s3`, through `client`: presigning, uploads in one `PUT` or in parts, deletes,
    /// aborts and listings.
    public func s3Storage(client: HTTPClient) throws -> S3Storage {
        S3Storage(
            presigner: try WorkerComponents.s3Presigner(presign.s3, limits: limits), client: client,
            configuration: S3Storage.Configuration(multipartThreshold: upload.multipartThreshold, partSize: upload.partSize,
                                                   stallTimeout: upload.stallTimeout))
    }
}

extension WorkerComponents {
    /// SigV4 presigning against the configured bucket; the policy's size limit is the worker's file size limit.
    static func s3Presigner(_ s3: AttacheConfiguration.S3, limits: UploadLimits) throws -> S3Presigner {
        let sessionToken = ProcessInfo.processInfo.environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        let configuration = S3PresignerConfiguration(
            bucket: s3.bucket, region: s3.region,
            credentials: SigV4Credentials(accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, sessionToken: sessionToken),
            endpoint: s3.endpoint.isEmpty ? nil : s3.endpoint, keyPrefix: s3.prefix, pathStyle: s3.pathStyle,
            publicBaseURL: s3.publicBaseUrl.isEmpty ? nil : s3.publicBaseUrl,
            policy: S3UploadPolicy(maximumSize: limits.fileSizeMax), serverSideEncryption: s3.encryption)
        return try S3Presigner(configuration: configuration)
    }
}
