import Foundation
import HTTPTransport

extension AttacheConfiguration {
    /// Checks what the keys cannot check alone: required values, ranges, and settings that depend on each other.
    public func validate() throws {
        func require(_ condition: Bool, _ key: String, _ problem: String) throws {
            if !condition { throw ConfigurationError(key: key, problem) }
        }
        try require(!kafka.brokers.isEmpty, "kafka.brokers", "is required (bootstrap servers, host:port[,host:port])")
        for (key, topic) in [("kafka.jobsTopic", kafka.jobsTopic), ("kafka.eventsTopic", kafka.eventsTopic),
                             ("kafka.dlqTopic", kafka.dlqTopic), ("kafka.messagesTopic", kafka.messagesTopic)] {
            try require(Self.isValidTopicName(topic), key, "'\(topic)' is not a valid topic name")
        }
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
        if messages.mode == .http {
            try require(Self.isHTTPURL(messages.url), "messages.url", "an http(s) URL is required when messages.mode is http")
        }
        try require(limits.fileSizeMax > 0, "limits.fileSizeMax", "must be positive")
        try require(limits.fileCountMax > 0, "limits.fileCountMax", "must be positive")
        try require(limits.attachmentsPerMessage > 0, "limits.attachmentsPerMessage", "must be positive")
        try require(limits.inlineMax > 0, "limits.inlineMax", "must be positive")
        try require((1...1000).contains(upload.concurrency), "upload.concurrency", "must be 1 to 1000")
        try require(upload.stallTimeout > .zero, "upload.stallTimeout", "must be positive")
        try require(upload.multipartThreshold >= 5 * 1024 * 1024, "upload.multipartThreshold", "must be at least 5MiB (S3's smallest part)")
        try require(retry.maxAttempts >= 1, "retry.maxAttempts", "must be at least 1")
        try require(retry.baseDelay <= retry.maxDelay, "retry.baseDelay", "must not exceed retry.maxDelay")
        try require(worker.maxTransfers >= 1, "worker.maxTransfers", "must be at least 1")
        try require(worker.maxInFlightBatches >= 1, "worker.maxInFlightBatches", "must be at least 1")
        try require(Self.hostAndPort(adminListen) != nil, "admin.listen", "must be host:port")
        try require(!staging.dir.isEmpty, "staging.dir", "must not be empty")
        try require(sources.resignUrl.isEmpty || Self.isHTTPURL(sources.resignUrl), "sources.resignUrl", "must be an http(s) URL")
        try require(presign.timeout > .zero, "presign.timeout", "must be positive")
        try require(sources.minSpeed > 0, "sources.minSpeed", "must be at least 1 (bytes per second)")
        try require(sources.fetchTimeout > .zero, "sources.fetchTimeout", "must be positive")
        do { _ = try AddressPolicy(allowHosts: sources.allowHosts) } catch {
            throw ConfigurationError(key: "sources.allowHosts", error.message)
        }
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
