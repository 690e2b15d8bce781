import EmbeddedHTTP
import Foundation
import HTTPTransport
import Records
import UploadEngine
import WireFormat

extension AttacheConfiguration {
    /// Checks what the keys cannot check alone: required values, ranges, and settings that depend on each other.
    public func validate() throws {
        func require(_ condition: Bool, _ key: String, _ problem: String) throws {
            if !condition { throw ConfigurationError(key: key, problem) }
        }
        try validateKafka()
        try validateDashboard()
        switch presign.mode {
        case .endpoint:
            try require(Self.isHTTPURL(presign.url), "presign.url", "an http(s) URL is required when presign.mode is endpoint")
        case .s3:
            try require(!presign.s3.bucket.isEmpty, "presign.s3.bucket", "is required when presign.mode is s3")
            try require(!presign.s3.region.isEmpty, "presign.s3.region", "is required when presign.mode is s3")
            try require(!presign.s3.accessKeyId.isEmpty, "presign.s3.accessKeyId", "is required (or AWS_ACCESS_KEY_ID)")
            try require(!presign.s3.secretAccessKey.isEmpty, "presign.s3.secretAccessKey", "is required (or AWS_SECRET_ACCESS_KEY)")
            try require(presign.s3.endpoint.isEmpty || Self.isHTTPURL(presign.s3.endpoint), "presign.s3.endpoint", "must be an http(s) URL")
        }
        try require(presign.s3.serverSideEncryption.isEmpty || presign.s3.encryption != nil, "presign.s3.serverSideEncryption",
                    "must be AES256 or aws:kms (or empty for the bucket's default)")
        try require(presign.s3.kmsKeyId.isEmpty || presign.s3.encryption?.algorithm == .kms, "presign.s3.kmsKeyId",
                    "needs presign.s3.serverSideEncryption aws:kms")
        try require(presign.s3.kmsKeyId.utf8.count <= 2048 && HeaderSafety.isSafe(presign.s3.kmsKeyId), "presign.s3.kmsKeyId",
                    "must be at most 2048 bytes without control characters")
        if messages.mode == .http {
            try require(Self.isHTTPURL(messages.url), "messages.url", "an http(s) URL is required when messages.mode is http")
        }
        // Every number has a range: beyond it a value is a mistake, and the arithmetic done with it later (capacity
        // sums, base64 estimates, backoff doubling, conversions to nanoseconds) is only overflow-free inside it.
        try requireRange(limits.fileSizeMax, 1...(5 << 40), "limits.fileSizeMax", "1B to 5TiB")
        try requireRange(limits.fileCountMax, 1...10_000, "limits.fileCountMax", "1 to 10000")
        try requireRange(limits.attachmentsPerMessage, 1...1000, "limits.attachmentsPerMessage", "1 to 1000")
        try requireRange(limits.inlineMax, 1...(256 << 20), "limits.inlineMax", "1B to 256MiB")
        try requireRange(limits.filesPerJob, 1...10_000, "limits.filesPerJob", "1 to 10000")
        try requireRange(events.maxBytes, CloudEventEncoder.minimumMaxBytes...(64 << 20), "events.maxBytes", "16KiB to 64MiB")
        try requireRange(limits.messageOptionsMax, 0...(events.maxBytes / 2), "limits.messageOptionsMax",
                         "0B to half of events.maxBytes (an event or snapshot carrying the options must still fit)")
        try require((1...1000).contains(upload.concurrency), "upload.concurrency", "must be 1 to 1000")
        try requireRange(upload.stallTimeout, .milliseconds(1)...Self.day, "upload.stallTimeout", "1ms to 24h")
        try require(upload.multipartThreshold >= 5 * 1024 * 1024, "upload.multipartThreshold", "must be at least 5MiB (S3's smallest part)")
        try requireRange(upload.multipartThreshold, (5 << 20)...(5 << 30), "upload.multipartThreshold", "5MiB to 5GiB (S3's part sizes)")
        try requireRange(upload.partSize, (5 << 20)...(5 << 30), "upload.partSize", "5MiB to 5GiB (S3's part sizes)")
        try requireRange(retry.maxAttempts, 1...100, "retry.maxAttempts", "1 to 100")
        try requireRange(retry.baseDelay, .zero...Self.day, "retry.baseDelay", "0ms to 24h")
        try requireRange(retry.maxDelay, .zero...Self.day, "retry.maxDelay", "0ms to 24h")
        try require(retry.baseDelay <= retry.maxDelay, "retry.baseDelay", "must not exceed retry.maxDelay")
        try requireRange(worker.maxTransfers, 1...100_000, "worker.maxTransfers", "1 to 100000")
        try requireRange(worker.maxInFlightBatches, 1...1_000_000, "worker.maxInFlightBatches", "1 to 1000000")
        try requireRange(worker.maxQueuedFiles, 1...10_000_000, "worker.maxQueuedFiles", "1 to 10000000")
        try requireRange(worker.tenantMaxTransfers, 0...100_000, "limits.tenantMaxTransfers", "0 (no cap) to 100000")
        // Tenants name metric series (§12): a bounded, operator-written set of well-formed names.
        try require(worker.tenantWeights.count <= 1_000, "limits.tenantWeights", "names at most 1000 tenants")
        for (tenant, weight) in worker.tenantWeights {
            try require(RecordField.tenant.problem(with: tenant) == nil, "limits.tenantWeights",
                        "tenant names are 1–128 bytes of printable characters")
            try require((1...1000).contains(weight), "limits.tenantWeights", "weights are 1 to 1000 (\(tenant): \(weight))")
        }
        try requireRange(worker.shutdownGrace, .zero...Self.day, "worker.shutdownGrace", "0ms to 24h")
        // The poll thread waits for the revoke hook; a group waits for its members' revokes.
        try requireRange(worker.revokeGrace, .zero...Duration.seconds(300), "worker.revokeGrace", "0ms to 5m")
        try requireRange(worker.batchTTL, .milliseconds(1)...(Self.day * 366), "worker.batchTTL", "1ms to 366 days")
        try requireRange(staging.cacheMax, 0...(1 << 50), "staging.cacheMax", "0 (unlimited) to 1PiB")
        try requireRange(staging.retainFailed, .zero...(Self.day * 366), "staging.retainFailed", "0ms to 366 days")
        try requireRange(staging.maxOpenSources, 0...1_000_000, "staging.maxOpenSources", "0 to 1000000")
        try requireRange(worker.maxCachedBatches, 0...10_000_000, "worker.maxCachedBatches", "0 to 10000000")
        try requireRange(state.cacheMax, 0...(1 << 40), "state.cacheMax", "0 (no snapshots cached) to 1TiB")
        try requireRange(state.flushInterval, .zero...Duration.seconds(60), "state.flushInterval", "0ms to 1m")
        try require(worker.id.utf8.count <= 255, "worker.id", "must be at most 255 bytes")
        try require(Self.hostAndPort(adminListen) != nil, "admin.listen", "must be host:port")
        try require(!staging.dir.isEmpty, "staging.dir", "must not be empty")
        try require(sources.resignUrl.isEmpty || Self.isHTTPURL(sources.resignUrl), "sources.resignUrl", "must be an http(s) URL")
        try require(presign.timeout > .zero, "presign.timeout", "must be positive")
        try requireRange(presign.minValidity, .zero...Self.day, "presign.minValidity", "0s to 24h")
        if let interval = storage.sweepInterval {
            try require(presign.mode == .s3, "storage.sweepInterval", "needs presign.mode s3 (Attache's own bucket)")
            try requireRange(interval, .seconds(1)...(Self.day * 7), "storage.sweepInterval", "1s to 7 days")
        }
        try require(sources.minSpeed > 0, "sources.minSpeed", "must be at least 1 (bytes per second)")
        try require(sources.fetchTimeout > .zero, "sources.fetchTimeout", "must be positive")
        do { _ = try AddressPolicy(allowHosts: sources.allowHosts) } catch {
            throw ConfigurationError(key: "sources.allowHosts", error.message)
        }
    }

    /// Checks the settings every Kafka client of the command line needs: the brokers and the topic names.
    public func validateKafka() throws {
        guard !kafka.brokers.isEmpty else {
            throw ConfigurationError(key: "kafka.brokers", "is required (bootstrap servers, host:port[,host:port])")
        }
        for (key, topic) in [("kafka.jobsTopic", kafka.jobsTopic), ("kafka.eventsTopic", kafka.eventsTopic),
                             ("kafka.dlqTopic", kafka.dlqTopic), ("kafka.messagesTopic", kafka.messagesTopic),
                             ("kafka.batchesTopic", kafka.batchesTopic)] where !Self.isValidTopicName(topic) {
            throw ConfigurationError(key: key, "'\(topic)' is not a valid topic name")
        }
    }

    /// Checks the dashboard's settings (`attache dashboard` checks them besides the Kafka ones).
    public func validateDashboard() throws {
        if Self.hostAndPort(dashboard.listen) == nil { throw ConfigurationError(key: "dashboard.listen", "must be host:port") }
        try requireRange(dashboard.maxBatches, 1...10_000_000, "dashboard.maxBatches", "1 to 10000000")
        // Each stream holds a connection thread of the embedded server.
        try requireRange(dashboard.maxClients, 1...1024, "dashboard.maxClients", "1 to 1024")
        for entry in dashboard.allowedHosts where HTTPHost(entry) == nil {
            throw ConfigurationError(key: "dashboard.allowedHosts",
                                     "'\(entry)' is not a host name or address with an optional :port (no scheme, path or wildcard)")
        }
        try Self.checkDashboardToken(dashboard.token, key: "dashboard.token")
    }

    /// Checks a dashboard token: at most 1024 visible ASCII characters, since it travels in a header, a cookie and a
    /// query string. Empty means no token.
    public static func checkDashboardToken(_ token: String, key: String) throws(ConfigurationError) {
        guard token.utf8.count <= 1024, token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw ConfigurationError(key: key, "must be at most 1024 visible ASCII characters (no spaces)")
        }
    }

    private static let day = Duration.seconds(86_400)

    /// Throws naming `key` unless `value` lies in `range`; `range` says it in words.
    private func requireRange<Value: Comparable>(_ value: Value, _ range: ClosedRange<Value>, _ key: String,
                                                 _ words: String) throws {
        if !range.contains(value) { throw ConfigurationError(key: key, "must be \(words)") }
    }

    static func isHTTPURL(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else { return false }
        return scheme == "http" || scheme == "https"
    }

    /// Kafka's rule: 1–249 of `[A-Za-z0-9._-]`, not `.` or `..`.
    static func isValidTopicName(_ name: String) -> Bool {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        return (1...249).contains(name.count) && name != "." && name != ".." && name.allSatisfy(allowed.contains)
    }

    /// Splits `host:port` (IPv6 in brackets); nil when malformed.
    public static func hostAndPort(_ text: String) -> (host: String, port: UInt16)? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        return (host, port)
    }
}
