/// Settings of the S3 presigner (`presign.mode = s3`, keys `presign.s3.*`).
public struct S3PresignerConfiguration: Sendable, Hashable {
    /// The lifetime of upload URLs when none is configured: 15 minutes.
    public static let defaultURLLifetime: Duration = .seconds(900)

    /// The bucket uploads go to.
    public var bucket: String
    /// The signing region, e.g. `us-east-1`.
    public var region: String
    /// `http(s)://host[:port]` of the S3 service; nil for AWS's regional endpoint `https://s3.{region}.amazonaws.com`.
    public var endpoint: String?
    /// The key that signs (config, or `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN`).
    public var credentials: SigV4Credentials
    /// Leading key segments, e.g. `uploads` or `tenant-a/uploads`; slashes at either end are ignored.
    public var keyPrefix: String
    /// Address the bucket in the path (`endpoint/bucket/key`) instead of the host (`bucket.endpoint/key`);
    /// needed for IP endpoints and most S3-compatible servers.
    public var pathStyle: Bool
    /// Where uploaded files are served from (a CDN, say): `fileUrl` becomes `{publicBaseURL}/{key}`. Nil: the
    /// object's own URL, without a query.
    public var publicBaseURL: String?
    /// How long presigned URLs stay valid: whole seconds, 1 s … 7 days.
    public var urlLifetime: Duration
    /// Which files the presigner agrees to sign.
    public var policy: S3UploadPolicy
    /// Encryption at rest signed into every upload; nil: the bucket's default.
    public var serverSideEncryption: S3ServerSideEncryption?

    /// Settings with the documented defaults; call `validate()` (or build an `S3Presigner`) before use.
    public init(
        bucket: String, region: String, credentials: SigV4Credentials, endpoint: String? = nil,
        keyPrefix: String = "", pathStyle: Bool = false, publicBaseURL: String? = nil,
        urlLifetime: Duration = S3PresignerConfiguration.defaultURLLifetime, policy: S3UploadPolicy = S3UploadPolicy(),
        serverSideEncryption: S3ServerSideEncryption? = nil
    ) {
        self.bucket = bucket
        self.region = region
        self.credentials = credentials
        self.endpoint = endpoint
        self.keyPrefix = keyPrefix
        self.pathStyle = pathStyle
        self.publicBaseURL = publicBaseURL
        self.urlLifetime = urlLifetime
        self.policy = policy
        self.serverSideEncryption = serverSideEncryption
    }

    /// The endpoint in use: the configured one, or AWS's for the region.
    public var resolvedEndpoint: String {
        endpoint ?? "https://s3.\(region).amazonaws.com"
    }

    /// `urlLifetime` in whole seconds.
    public var urlLifetimeSeconds: Int {
        Int(clamping: urlLifetime.components.seconds)
    }
}
