import Foundation

extension HTTPClient {
    /// How an `HTTPClient` behaves; the defaults suit uploads to object storage.
    public struct Configuration: Sendable, Hashable {
        /// Transfers running at once across the whole client (`worker.maxTransfers`); more wait in arrival order.
        public var maxConcurrentTransfers: Int
        /// Abort a transfer when no byte moves for this long (`upload.stallTimeout`); nil disables the check.
        public var stallTimeout: Duration?
        /// How long connecting (TCP and TLS) may take.
        public var connectTimeout: Duration
        /// The largest response body `send` keeps in memory; a larger one fails with `.sizeLimitExceeded`.
        public var maxResponseBodySize: Int
        /// The size of libcurl's upload buffer per transfer: larger means fewer callbacks, more memory per transfer.
        /// The default, 64 KiB (libcurl's and curl's own), keeps a core's transfers' buffers in its cache: with 256 KiB,
        /// eight uploads from the page cache spent five times as long copying into their buffers (a third of the
        /// worker's CPU in 8 × 64 MiB), and the worker used a third more CPU.
        public var uploadBufferSize: Int
        /// The `User-Agent` header.
        public var userAgent: String
        /// How many libcurl multi loops (threads) share the transfers: by default one per core, up to four. More
        /// than one spreads what runs on a transfer's thread — reading its source, hashing what it reads, TLS — over
        /// the cores (8 × 64 MiB uploads took 0.93 s on two threads against 1.26 s on one).
        public var transferThreads: Int
        /// The cap on upload bytes per second across the client (`upload.maxBytesPerSecond`); nil: none.
        public var maxUploadBytesPerSecond: Int64?
        /// The cap on each tenant's upload bytes per second (`upload.maxBytesPerSecondPerTenant`); nil: none.
        public var maxUploadBytesPerSecondPerTenant: Int64?

        /// A configuration; every parameter defaults to the value documented on its property.
        public init(
            maxConcurrentTransfers: Int = 64, stallTimeout: Duration? = .seconds(30),
            connectTimeout: Duration = .seconds(10), maxResponseBodySize: Int = 8 << 20,
            uploadBufferSize: Int = 64 << 10, userAgent: String = "attache",
            transferThreads: Int = min(ProcessInfo.processInfo.activeProcessorCount, 4)
        ) {
            self.maxConcurrentTransfers = maxConcurrentTransfers
            self.stallTimeout = stallTimeout
            self.connectTimeout = connectTimeout
            self.maxResponseBodySize = maxResponseBodySize
            self.uploadBufferSize = uploadBufferSize
            self.userAgent = userAgent
            self.transferThreads = transferThreads
        }

        /// The values clamped to what libcurl accepts: at least one transfer, an upload buffer of 16 KiB … 2 MiB;
        /// 1 … 16 transfer threads, never more than transfers.
        func validated() -> Configuration {
            var copy = self
            copy.maxConcurrentTransfers = max(1, maxConcurrentTransfers)
            copy.transferThreads = min(max(transferThreads, 1), 16, copy.maxConcurrentTransfers)
            copy.uploadBufferSize = min(max(uploadBufferSize, 16 << 10), 2 << 20)
            return copy
        }
    }
}
