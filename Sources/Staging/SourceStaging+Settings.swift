import HTTPTransport

extension SourceStaging {
    /// How sources are fetched and what is done to their bytes.
    public struct Settings: Sendable {
        /// Where URL sources may connect (`sources.allowHosts`); public addresses only by default.
        public var addressPolicy: AddressPolicy
        /// `sources.resignUrl`: asked once for a fresh URL when a source answers 401, 403 or 410; nil asks nobody.
        public var resignURL: String?
        /// `sources.stripLocation`: remove the GPS block from JPEG EXIF metadata before upload.
        public var stripLocation: Bool
        /// `sources.minSpeed`: a download averaging fewer bytes per second over an `upload.stallTimeout` window
        /// fails `ERR_SOURCE_FETCH_FAILED`, so a server trickling bytes cannot keep a file staging forever.
        public var minimumSpeed: Int64
        /// `sources.fetchTimeout`: the longest one source download may run, however fast it moves.
        public var fetchTimeout: Duration
        /// `staging.maxOpenSources`: `path` sources held open between attempts of failed files, at most; beyond it a
        /// failed file closes its source and the next attempt opens it again. 0 holds none.
        public var maxOpenSources: Int
        /// Whether the presigner signs each file's SHA-256 into its upload (`presign.mode = s3`), so it must be known
        /// before the upload: a `path` source is then hashed in a read pass of its own when staged, rather than by
        /// the upload's reads.
        public var signsDigest: Bool

        /// Settings; every parameter has the safe default.
        public init(addressPolicy: AddressPolicy = .publicOnly, resignURL: String? = nil, stripLocation: Bool = false,
                    minimumSpeed: Int64 = 1024, fetchTimeout: Duration = .seconds(600), maxOpenSources: Int = 4096,
                    signsDigest: Bool = false) {
            self.addressPolicy = addressPolicy
            self.resignURL = resignURL.flatMap { $0.isEmpty ? nil : $0 }
            self.stripLocation = stripLocation
            self.minimumSpeed = minimumSpeed
            self.fetchTimeout = fetchTimeout
            self.maxOpenSources = maxOpenSources
            self.signsDigest = signsDigest
        }
    }
}
