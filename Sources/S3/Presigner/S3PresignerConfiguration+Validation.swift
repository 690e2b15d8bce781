import Foundation

extension S3PresignerConfiguration {
    /// Checks every setting before the presigner starts.
    /// - Throws: `S3Error` `.invalidConfiguration` naming the setting (`.urlLifetimeOutOfRange` for the lifetime).
    public func validate() throws {
        try validateBucket()
        if region.isEmpty || !region.utf8.allSatisfy({ Self.isLowerAlphanumeric($0) || $0 == UInt8(ascii: "-") }) {
            throw invalid("region", "must be a region name such as us-east-1; got \"\(region)\"")
        }
        if credentials.accessKeyId.isEmpty || credentials.secretAccessKey.isEmpty {
            throw invalid("accessKeyId/secretAccessKey", "both must be set")
        }
        _ = try S3BucketEndpoint(configuration: self)
        if let publicBaseURL {
            guard let url = URLComponents(string: publicBaseURL), ["http", "https"].contains(url.scheme ?? ""),
                url.host?.isEmpty == false, url.query == nil, url.fragment == nil
            else {
                throw invalid("publicBaseUrl", "must be an http(s) URL without query; got \"\(publicBaseURL)\"")
            }
        }
        let prefixSegments = keyPrefix.split(separator: "/", omittingEmptySubsequences: false)
            .drop { $0.isEmpty }.reversed().drop { $0.isEmpty }
        if prefixSegments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) {
            throw invalid("prefix", "must not contain empty, \".\" or \"..\" segments; got \"\(keyPrefix)\"")
        }
        let components = urlLifetime.components
        if components.attoseconds != 0 || components.seconds < 1
            || components.seconds > Int64(SigV4Signer.maximumPresignLifetime)
        {
            throw S3Error(
                .urlLifetimeOutOfRange,
                "presign.s3 URL lifetime must be whole seconds from 1 s to 7 days (604800 s); got \(urlLifetime)")
        }
        if let maximumSize = policy.maximumSize, maximumSize < 1 {
            throw invalid("policy size limit", "must be at least 1 byte; got \(maximumSize)")
        }
        if let bad = policy.allowedMimeTypes.first(where: { !S3UploadPolicy.isValidPattern($0) }) {
            throw invalid("policy mime types", "\"\(bad)\" is not type/subtype, type/* or */*")
        }
    }

    private func validateBucket() throws {
        guard (3...63).contains(bucket.utf8.count) else {
            throw invalid("bucket", "must be 3 to 63 characters; got \"\(bucket)\"")
        }
        let dnsCompatible = bucket.utf8.allSatisfy {
            Self.isLowerAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        }
        if !pathStyle && !dnsCompatible {
            throw invalid(
                "bucket", "\"\(bucket)\" cannot be a host name; use lower-case letters, digits, '-' and '.', or path style")
        }
        if bucket.contains("/") || bucket.contains("?") || bucket.contains("#") {
            throw invalid("bucket", "\"\(bucket)\" contains a URL delimiter")
        }
    }

    private func invalid(_ key: String, _ reason: String) -> S3Error {
        S3Error(.invalidConfiguration, "presign.s3 \(key): \(reason)")
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
