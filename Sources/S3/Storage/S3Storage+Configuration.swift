import UploadEngine

extension S3Storage {
    /// How `S3Storage` uploads; the defaults are the configuration keys' defaults.
    public struct Configuration: Sendable, Hashable {
        /// Files larger than this go up in parts (`upload.multipartThreshold`); files over 5 GiB always do.
        public var multipartThreshold: Int64
        /// The size of each part but the last, at least 5 MiB; grown when 10,000 parts would not hold the file.
        public var partSize: Int64
        /// Parts of one file in flight at once.
        public var partConcurrency: Int
        /// Attempts and backoff for each part, and for creating and completing the upload. A failed part is sent
        /// again alone; the others carry on.
        public var partRetry: RetryPolicy
        /// Whether every part carries its SHA-256 (`x-amz-checksum-sha256`), so storage verifies each byte.
        public var partChecksums: Bool
        /// No-progress limit of each storage request (`upload.stallTimeout`); nil uses the client's.
        public var stallTimeout: Duration?
        /// A limit on the small requests: creating and aborting an upload, deleting an object.
        public var requestTimeout: Duration

        /// A configuration; every parameter defaults to the value documented on its property.
        public init(
            multipartThreshold: Int64 = 64 * 1024 * 1024, partSize: Int64 = S3MultipartPlan.defaultPartSize,
            partConcurrency: Int = 4,
            partRetry: RetryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(500), maxDelay: .seconds(10)),
            partChecksums: Bool = true, stallTimeout: Duration? = nil, requestTimeout: Duration = .seconds(60)
        ) {
            self.multipartThreshold = multipartThreshold
            self.partSize = partSize
            self.partConcurrency = partConcurrency
            self.partRetry = partRetry
            self.partChecksums = partChecksums
            self.stallTimeout = stallTimeout
            self.requestTimeout = requestTimeout
        }

        /// The values made usable: at least one part in flight and one attempt.
        func validated() -> Configuration {
            var copy = self
            copy.partConcurrency = max(1, partConcurrency)
            copy.partRetry.maxAttempts = max(1, partRetry.maxAttempts)
            return copy
        }
    }
}
