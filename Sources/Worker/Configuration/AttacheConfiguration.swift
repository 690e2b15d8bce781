import S3
import UploadEngine

/// Everything a worker is configured with (the keys of the configuration file; defaults as documented).
public struct AttacheConfiguration: Sendable, Hashable {
    public struct Kafka: Sendable, Hashable {
        public var brokers = ""
        public var groupId = "attache"
        public var createTopics = true
        public var jobsTopic = "attache.jobs"
        public var eventsTopic = "attache.events"
        public var dlqTopic = "attache.jobs.dlq"
        public var messagesTopic = "attache.messages"
        /// The compacted changelog of batch state, co-partitioned with the jobs topic (§4.1).
        public var batchesTopic = "attache.batches"
        /// Raw librdkafka properties, passed through unchanged (SASL, TLS, tuning).
        public var properties: [String: String] = [:]
    }

    public enum PresignMode: String, Sendable, Hashable, CaseIterable { case endpoint, s3 }

    public struct S3: Sendable, Hashable {
        public var bucket = ""
        public var region = ""
        public var endpoint = ""
        public var accessKeyId = ""
        public var secretAccessKey = ""
        public var prefix = ""
        public var pathStyle = false
        public var publicBaseUrl = ""
        /// Encryption at rest signed into every upload: empty (the bucket's default), `AES256` or `aws:kms`.
        public var serverSideEncryption = ""
        /// The KMS key for `aws:kms`; empty: the bucket's default KMS key.
        public var kmsKeyId = ""

        /// The encryption to sign, once validated.
        var encryption: S3ServerSideEncryption? {
            S3ServerSideEncryption.Algorithm(rawValue: serverSideEncryption).map {
                S3ServerSideEncryption($0, kmsKeyId: kmsKeyId.isEmpty ? nil : kmsKeyId)
            }
        }
    }

    public struct Presign: Sendable, Hashable {
        public var mode = PresignMode.endpoint
        public var url = ""
        public var s3 = S3()
        /// The limit on one presign call (`presign.mode = endpoint`).
        public var timeout: Duration = .seconds(30)
        /// A kept URL that expires sooner than this is presigned again before its request (`presign.minValidity`).
        public var minValidity: Duration = .seconds(60)
    }

    public enum MessagesMode: String, Sendable, Hashable, CaseIterable { case http, kafka, none }

    public struct Messages: Sendable, Hashable {
        public var mode = MessagesMode.http
        public var url = ""
        public var apiKey = ""
    }

    public struct Upload: Sendable, Hashable {
        public var concurrency = 1
        public var stallTimeout: Duration = .seconds(30)
        public var multipartThreshold: Int64 = 64 * 1024 * 1024
        /// The part size of multipart uploads (`upload.partSize`).
        public var partSize: Int64 = 8 * 1024 * 1024
        /// Upload rate caps (DESIGN §12 *Bandwidth*): the worker's total and each tenant's, bytes per second.
        public var maxBytesPerSecond: Int64?
        public var maxBytesPerSecondPerTenant: Int64?
    }

    public struct Worker: Sendable, Hashable {
        /// The `source` of published events; host name and pid unless set.
        public var id = ""
        /// Transfer slots: files in flight at once across all batches, shared fairly across tenants (DESIGN §12).
        public var maxTransfers = 64
        /// Backpressure marks (DESIGN §4 *Never stop polling*): busy batches, and files waiting for a slot.
        public var maxInFlightBatches = 4_096
        public var maxQueuedFiles = 10_000
        /// Transfer slots' grants per turn by tenant (`limits.tenantWeights`); others have weight 1.
        public var tenantWeights: [String: Int] = [:]
        /// Slots one tenant may hold at once (`limits.tenantMaxTransfers`); 0: no cap but `maxTransfers`.
        public var tenantMaxTransfers = 0
        public var shutdownGrace: Duration = .seconds(25)
        /// How long a revoke lets the moving partitions' in-flight work settle before handing it over (`worker.revokeGrace`).
        public var revokeGrace: Duration = .seconds(10)
        /// An idle batch untouched this long is tombstoned and forgotten.
        public var batchTTL: Duration = .seconds(24 * 3600)
        /// Idle batches kept in memory besides those with work in flight; the rest are read from the store.
        public var maxCachedBatches = 10_000
    }

    /// Durable batch state (`state.*`, §4.1).
    public struct State: Sendable, Hashable {
        /// false: batches live in memory only and are lost on handover (for development).
        public var durable = true
        /// A batch's changes within this window go out as one snapshot.
        public var flushInterval: Duration = .milliseconds(50)
        /// Bytes of recently recorded snapshots held in memory (beside `worker.maxCachedBatches`, a count): a
        /// snapshot may take up to `events.maxBytes`, so a count alone does not bound them.
        public var cacheMax: Int64 = 64 * 1024 * 1024
    }

    public struct Sources: Sendable, Hashable {
        /// Root for `path` sources; empty turns path sources off.
        public var root = ""
        public var resignUrl = ""
        /// Host names, IPs or CIDR ranges allowed despite the private-address rule.
        public var allowHosts: [String] = []
        /// Remove GPS metadata from JPEG files before upload.
        public var stripLocation = false
        /// Bytes per second a source download must average over an `upload.stallTimeout` window.
        public var minSpeed: Int64 = 1024
        /// The longest one source download may run.
        public var fetchTimeout: Duration = .seconds(600)
    }

    public struct Staging: Sendable, Hashable {
        public var dir = "./.attache/staging"
        /// 0 = unlimited.
        public var cacheMax: Int64 = 500 * 1024 * 1024
        /// Staged bytes of a failed file are kept this long for its retry; afterwards a retry stages the source again.
        public var retainFailed: Duration = .seconds(3600)
        /// `path` sources failed files hold open for their retry, at most; beyond it a retry opens the source again.
        public var maxOpenSources = 4096
    }

    /// The bucket's housekeeping (`storage.*`, `presign.mode = s3`).
    public struct Storage: Sendable, Hashable {
        /// How often the worker aborts orphaned multipart uploads of the batches it owns; nil: never.
        public var sweepInterval: Duration?
    }

    /// Published events (`events.*`).
    public struct Events: Sendable, Hashable {
        /// The largest encoded event (`events.maxBytes`): under Kafka's default 1 MB message limit.
        public var maxBytes = 900 * 1024
    }

    /// The live dashboard (`dashboard.*`, `attache dashboard`).
    public struct Dashboard: Sendable, Hashable {
        /// `host:port` the dashboard's page and stream are served on.
        public var listen = "127.0.0.1:9470"
        /// Batches the dashboard keeps; beyond it the one whose last event is oldest is forgotten.
        public var maxBatches = 50_000
        /// Host names (with or without `:port`) the dashboard answers to besides its listen address and loopback:
        /// the names a proxy in front of it forwards.
        public var allowedHosts: [String] = []
        /// The token every request must carry; empty: none. A credential (`config print` redacts it).
        public var token = ""
        /// Live event streams served at once.
        public var maxClients = 64
    }

    public enum LogLevel: String, Sendable, Hashable, CaseIterable, Comparable {
        case trace, debug, info, warn, error
        public static func < (lhs: Self, rhs: Self) -> Bool { allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)! }
    }

    public enum LogFormat: String, Sendable, Hashable, CaseIterable { case json, text }

    public struct Log: Sendable, Hashable {
        public var level = LogLevel.info
        public var format = LogFormat.json
    }

    public var kafka = Kafka()
    public var presign = Presign()
    public var messages = Messages()
    public var limits = UploadLimits()
    public var upload = Upload()
    public var retry = RetryPolicy()
    public var worker = Worker()
    public var sources = Sources()
    public var staging = Staging()
    public var storage = Storage()
    public var events = Events()
    public var state = State()
    /// `host:port` of the health and metrics listener.
    public var adminListen = "127.0.0.1:9464"
    public var log = Log()
    public var dashboard = Dashboard()

    public init() {}

    /// The engine's part of the configuration.
    public var engine: EngineConfiguration {
        var engine = EngineConfiguration()
        engine.limits = limits
        engine.retry = retry
        engine.concurrency = upload.concurrency
        engine.stallTimeout = upload.stallTimeout
        engine.presignMinValidity = presign.minValidity
        return engine
    }
}

extension AttacheConfiguration {
    /// The revoke grace the worker keeps: `worker.revokeGrace`, but at most two thirds of the consumer's
    /// `session.timeout.ms` (45 s unless set). While a revoke waits the member does not rejoin its group, and one
    /// that waits past its session is dropped — its partitions lost instead of handed over.
    public var effectiveRevokeGrace: Duration {
        let session = kafka.properties["session.timeout.ms"].flatMap(Int64.init).map(Duration.milliseconds) ?? .seconds(45)
        return min(worker.revokeGrace, session * 2 / 3)
    }
}
