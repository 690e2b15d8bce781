extension PresignService {
    /// How a presign service is set up.
    public struct Configuration: Sendable {
        /// The endpoint's path (default `/presign`).
        public var path: String
        /// How long upload URLs stay valid (default 15 minutes).
        public var urlLifetime: Duration
        /// What is refused (default: nothing).
        public var policy: PresignPolicy
        /// The largest request body read (default 1 MiB); larger ones answer 413.
        public var requestBodyLimit: Int
        /// The port to bind on 127.0.0.1 (default 0: ephemeral).
        public var port: UInt16

        /// A configuration; every parameter has the documented default.
        public init(path: String = "/presign", urlLifetime: Duration = .seconds(900),
                    policy: PresignPolicy = PresignPolicy(), requestBodyLimit: Int = 1 << 20, port: UInt16 = 0) {
            self.path = path
            self.urlLifetime = urlLifetime
            self.policy = policy
            self.requestBodyLimit = requestBodyLimit
            self.port = port
        }
    }
}
