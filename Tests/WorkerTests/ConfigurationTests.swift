import Foundation
import S3
import Testing
import WireFormat
@testable import Worker

@Suite struct ConfigurationTests {
    private let minimal = ["ATTACHE_KAFKA_BROKERS": "127.0.0.1:9092", "ATTACHE_PRESIGN_URL": "http://127.0.0.1:1/presign",
                           "ATTACHE_MESSAGES_URL": "http://127.0.0.1:1/messages"]

    @Test func defaultsAreTheDocumentedOnes() throws {
        let configuration = try ConfigurationLoader.load(json: nil, environment: minimal)
        #expect(configuration.kafka.groupId == "attache")
        #expect(configuration.kafka.jobsTopic == "attache.jobs")
        #expect(configuration.kafka.dlqTopic == "attache.jobs.dlq")
        #expect(configuration.limits.fileSizeMax == 100 * 1024 * 1024)
        #expect(configuration.limits.fileCountMax == 10)
        #expect(configuration.limits.inlineMax == 1024 * 1024)
        #expect(configuration.upload.concurrency == 1)
        #expect(configuration.upload.stallTimeout == .seconds(30))
        #expect(configuration.retry == .init(maxAttempts: 3, baseDelay: .seconds(1), maxDelay: .seconds(30)))
        #expect(configuration.worker.shutdownGrace == .seconds(25))
        #expect(configuration.worker.batchTTL == .seconds(24 * 3600))
        #expect(configuration.worker.maxCachedBatches == 10_000)
        #expect(configuration.staging.retainFailed == .seconds(3600))
        #expect(configuration.staging.maxOpenSources == 4096)
        #expect(configuration.state.durable && configuration.state.flushInterval == .milliseconds(50))
        #expect(configuration.kafka.batchesTopic == "attache.batches")
        #expect(configuration.staging.cacheMax == 500 * 1024 * 1024)
        #expect(configuration.adminListen == "127.0.0.1:9464")
        #expect(configuration.worker.maxTransfers == 64)
        #expect(configuration.worker.maxInFlightBatches == 4_096)
        #expect(configuration.worker.maxQueuedFiles == 10_000)
        #expect(configuration.worker.tenantWeights.isEmpty && configuration.worker.tenantMaxTransfers == 0)
        #expect(configuration.limits.messageBytesMax == nil)
    }

    @Test func tenantWeightsAreAnObjectInTheFileAndPairsInTheEnvironment() throws {
        let json = #"{"limits": {"tenantWeights": {"acme": 3, "globex": "2"}, "tenantMaxTransfers": 8, "messageBytesMax": "100MiB"}}"#
        let fromFile = try ConfigurationLoader.load(json: Data(json.utf8), environment: minimal)
        #expect(fromFile.worker.tenantWeights == ["acme": 3, "globex": 2])
        #expect(fromFile.worker.tenantMaxTransfers == 8)
        #expect(fromFile.limits.messageBytesMax == 100 << 20)
        let fromEnvironment = try ConfigurationLoader.load(json: Data(json.utf8), environment: minimal.merging(
            ["ATTACHE_LIMITS_TENANT_WEIGHTS": "acme=5, initech=1", "ATTACHE_LIMITS_MESSAGE_BYTES_MAX": "0"]) { $1 })
        #expect(fromEnvironment.worker.tenantWeights == ["acme": 5, "initech": 1])
        #expect(fromEnvironment.limits.messageBytesMax == nil, "0 unsets the cap")
        for (variable, value) in [("ATTACHE_LIMITS_TENANT_WEIGHTS", "acme"), ("ATTACHE_LIMITS_TENANT_WEIGHTS", "acme=0"),
                                  ("ATTACHE_LIMITS_TENANT_WEIGHTS", "acme=x"), ("ATTACHE_LIMITS_TENANT_MAX_TRANSFERS", "-1"),
                                  ("ATTACHE_WORKER_MAX_QUEUED_FILES", "0")] {
            #expect(throws: ConfigurationError.self, "\(variable)=\(value)") {
                try ConfigurationLoader.load(json: nil, environment: minimal.merging([variable: value]) { $1 })
            }
        }
    }

    @Test func aListIsSplitAtEveryCommaEvenOneACombiningMarkFollows() {
        #expect(ConfigurationValue.list(" a , b,,c ") == ["a", "b", "c"])
        // Found by fuzzing: a comma and a combining acute accent make one character.
        #expect(ConfigurationValue.list("10.0.0.0/8,\u{301}127.0.0.1") == ["10.0.0.0/8", "\u{301}127.0.0.1"])
        #expect(ConfigurationValue.list("a,\u{301}").allSatisfy { !$0.unicodeScalars.contains(",") })
    }

    @Test func theRevokeGraceKeptStaysWithinTwoThirdsOfTheSessionTimeout() throws {
        let defaults = try ConfigurationLoader.load(json: nil, environment: minimal)
        #expect(defaults.worker.revokeGrace == .seconds(10))
        #expect(defaults.effectiveRevokeGrace == .seconds(10), "45 s session by default")
        let shortSession = try ConfigurationLoader.load(json: nil, environment: minimal.merging(
            ["ATTACHE_KAFKA_PROPERTY_SESSION_TIMEOUT_MS": "6000"]) { $1 })
        #expect(shortSession.effectiveRevokeGrace == .seconds(4), "a member waiting past its session is dropped")
        let explicit = try ConfigurationLoader.load(json: nil, environment: minimal.merging(["ATTACHE_WORKER_REVOKE_GRACE": "2s"]) { $1 })
        #expect(explicit.effectiveRevokeGrace == .seconds(2))
    }

    @Test func theFileIsReadAndTheEnvironmentWins() throws {
        let json = """
        {"kafka": {"brokers": "file:9092", "properties": {"security.protocol": "SASL_SSL", "linger.ms": 5}},
         "limits": {"fileSizeMax": "2MiB", "fileCountMax": 4},
         "upload": {"stallTimeout": "5s"}, "sources": {"allowHosts": ["127.0.0.1", "10.0.0.0/8"]},
         "presign": {"url": "http://p/presign"}, "messages": {"mode": "none"}}
        """
        let configuration = try ConfigurationLoader.load(json: Data(json.utf8), environment: [
            "ATTACHE_KAFKA_BROKERS": "env:9092", "ATTACHE_LIMITS_FILE_COUNT_MAX": "7",
            "ATTACHE_KAFKA_PROPERTY_SASL_MECHANISMS": "PLAIN", "ATTACHE_RETRY_BASE_DELAY": "250ms", "PATH": "/bin",
        ])
        #expect(configuration.kafka.brokers == "env:9092")
        #expect(configuration.kafka.properties == ["security.protocol": "SASL_SSL", "linger.ms": "5", "sasl.mechanisms": "PLAIN"])
        #expect(configuration.limits.fileSizeMax == 2 * 1024 * 1024)
        #expect(configuration.limits.fileCountMax == 7)
        #expect(configuration.upload.stallTimeout == .seconds(5))
        #expect(configuration.retry.baseDelay == .milliseconds(250))
        #expect(configuration.sources.allowHosts == ["127.0.0.1", "10.0.0.0/8"])
        #expect(configuration.messages.mode == .none)
    }

    @Test func aFileMayStartWithAByteOrderMarkAndWriteWholeNumbersWithAFraction() throws {
        let json = #"{"upload": {"concurrency": 3.0}, "limits": {"fileCountMax": 1e1}, "kafka": {"properties": {"linger.ms": 5.0}}}"#
        let configuration = try ConfigurationLoader.load(json: Data([0xEF, 0xBB, 0xBF] + Array(json.utf8)), environment: minimal)
        #expect(configuration.upload.concurrency == 3)
        #expect(configuration.limits.fileCountMax == 10)
        #expect(configuration.kafka.properties["linger.ms"] == "5")
    }

    @Test(arguments: [
        ("limits.fileSizeMax", "ATTACHE_LIMITS_FILE_SIZE_MAX"), ("presign.s3.accessKeyId", "ATTACHE_PRESIGN_S3_ACCESS_KEY_ID"),
        ("kafka.jobsTopic", "ATTACHE_KAFKA_JOBS_TOPIC"), ("admin.listen", "ATTACHE_ADMIN_LISTEN"),
    ])
    func environmentNamesAreTheKeyPathInUpperSnakeCase(key: String, variable: String) {
        #expect(ConfigurationValue.environmentName(of: key) == variable)
    }

    @Test(arguments: [
        (#"{"limits": {"fileSizMax": 3}}"#, [String: String](), "limits.fileSizMax", "unknown key"),
        (#"{"limits": {"fileSizeMax": "lots"}}"#, [:], "limits.fileSizeMax", "expected a size"),
        (#"{"upload": {"stallTimeout": 30}}"#, [:], "upload.stallTimeout", "expected a duration"),
        (#"{"messages": {"mode": "smoke"}}"#, [:], "messages.mode", "expected one of http, kafka, none"),
        ("{}", ["ATTACHE_LIMITS_FILE_COUNT": "3"], "ATTACHE_LIMITS_FILE_COUNT", "unknown setting"),
        ("{}", ["ATTACHE_UPLOAD_CONCURRENCY": "many"], "ATTACHE_UPLOAD_CONCURRENCY", "expected a whole number"),
        ("{}", ["ATTACHE_UPLOAD_CONCURRENCY": "0"], "upload.concurrency", "must be 1 to 1000"),
        ("{}", ["ATTACHE_PRESIGN_URL": ""], "presign.url", "an http(s) URL is required"),
        ("{}", ["ATTACHE_PRESIGN_MODE": "s3"], "presign.s3.bucket", "is required"),
        ("{}", ["ATTACHE_KAFKA_JOBS_TOPIC": "bad topic"], "kafka.jobsTopic", "not a valid topic name"),
        ("{}", ["ATTACHE_PRESIGN_S3_SERVER_SIDE_ENCRYPTION": "aes256"], "presign.s3.serverSideEncryption", "must be AES256 or aws:kms"),
        ("{}", ["ATTACHE_PRESIGN_S3_KMS_KEY_ID": "alias/media"], "presign.s3.kmsKeyId", "needs presign.s3.serverSideEncryption aws:kms"),
        ("{}", ["ATTACHE_PRESIGN_S3_SERVER_SIDE_ENCRYPTION": "aws:kms", "ATTACHE_PRESIGN_S3_KMS_KEY_ID": "a\nb"],
         "presign.s3.kmsKeyId", "without control characters"),
        ("{}", ["ATTACHE_UPLOAD_PART_SIZE": "4MiB"], "upload.partSize", "5MiB to 5GiB"),
        ("{}", ["ATTACHE_STORAGE_SWEEP_INTERVAL": "1h"], "storage.sweepInterval", "needs presign.mode s3"),
        ("{}", ["ATTACHE_STORAGE_SWEEP_INTERVAL": "soon"], "ATTACHE_STORAGE_SWEEP_INTERVAL", "expected a duration"),
        ("[1]", [:], "(file)", "the top level must be an object"),
    ])
    func badSettingsStopTheStartNamingTheKey(json: String, environment: [String: String], key: String, problem: String) {
        let merged = minimal.merging(environment) { $1 }
        #expect {
            try ConfigurationLoader.load(json: Data(json.utf8), environment: merged)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.key == key && error.problem.contains(problem)
        }
    }

    @Test func brokersAreRequired() {
        #expect(throws: ConfigurationError(key: "kafka.brokers", "is required (bootstrap servers, host:port[,host:port])")) {
            try ConfigurationLoader.load(json: nil, environment: ["ATTACHE_MESSAGES_MODE": "none", "ATTACHE_PRESIGN_URL": "http://x/p"])
        }
    }

    @Test func awsCredentialsComeFromTheEnvironmentForS3() throws {
        let configuration = try ConfigurationLoader.load(json: nil, environment: minimal.merging([
            "ATTACHE_PRESIGN_MODE": "s3", "ATTACHE_PRESIGN_S3_BUCKET": "media", "ATTACHE_PRESIGN_S3_REGION": "eu-west-1",
            "AWS_ACCESS_KEY_ID": "AKIA", "AWS_SECRET_ACCESS_KEY": "secret",
        ]) { $1 })
        #expect(configuration.presign.s3.accessKeyId == "AKIA")
        #expect(configuration.presign.s3.secretAccessKey == "secret")
    }

    @Test func encryptionAtRestAndThePartSizeReachTheStorageSettings() throws {
        let configuration = try ConfigurationLoader.load(json: nil, environment: minimal.merging([
            "ATTACHE_PRESIGN_MODE": "s3", "ATTACHE_PRESIGN_S3_BUCKET": "media", "ATTACHE_PRESIGN_S3_REGION": "eu-west-1",
            "AWS_ACCESS_KEY_ID": "AKIA", "AWS_SECRET_ACCESS_KEY": "secret",
            "ATTACHE_PRESIGN_S3_SERVER_SIDE_ENCRYPTION": "aws:kms", "ATTACHE_PRESIGN_S3_KMS_KEY_ID": "alias/media",
            "ATTACHE_UPLOAD_PART_SIZE": "16MiB", "ATTACHE_STORAGE_SWEEP_INTERVAL": "15m", "ATTACHE_PRESIGN_MIN_VALIDITY": "5m",
        ]) { $1 })
        #expect(configuration.storage.sweepInterval == .seconds(900) && configuration.presign.minValidity == .seconds(300))
        #expect(configuration.presign.s3.encryption == S3ServerSideEncryption(.kms, kmsKeyId: "alias/media"))
        #expect(configuration.upload.partSize == 16 << 20)
        let presigner = try WorkerComponents.s3Presigner(configuration.presign.s3, limits: configuration.limits)
        #expect(presigner.configuration.serverSideEncryption == S3ServerSideEncryption(.kms, kmsKeyId: "alias/media"))
        let defaults = try ConfigurationLoader.load(json: nil, environment: minimal)
        #expect(defaults.presign.s3.encryption == nil && defaults.upload.partSize == 8 << 20)
        #expect(defaults.storage.sweepInterval == nil && defaults.presign.minValidity == .seconds(60))
    }

    @Test(arguments: [("250ms", Duration.milliseconds(250)), ("30s", .seconds(30)), ("5m", .seconds(300)), ("1h", .seconds(3600))])
    func durationsAreParsed(text: String, duration: Duration) {
        #expect(ConfigurationValue.duration(text) == duration)
    }

    @Test(arguments: ["30", "1.5s", "-1s", "s", "10d"])
    func malformedDurationsAreRefused(text: String) {
        #expect(ConfigurationValue.duration(text) == nil)
    }

    @Test(arguments: [("512", Int64(512)), ("1KiB", 1024), ("100MiB", 104_857_600), ("1 GiB", 1_073_741_824), ("0", 0), ("7B", 7)])
    func sizesAreParsed(text: String, bytes: Int64) {
        #expect(ConfigurationValue.size(text) == bytes)
    }

    @Test(arguments: ["1.5MiB", "-3", "10MB", "MiB", "99999999999GiB"])
    func malformedSizesAreRefused(text: String) {
        #expect(ConfigurationValue.size(text) == nil)
    }
}
