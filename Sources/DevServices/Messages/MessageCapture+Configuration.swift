extension MessageCapture {
    /// How a message capture is set up.
    public struct Configuration: Sendable {
        /// The endpoint's path (default `/v3/messages`).
        public var path: String
        /// The api key required in the `apikey` header (default nil: any or none is accepted).
        public var apiKey: String?
        /// The largest request body read (default 1 MiB); larger ones answer 413.
        public var requestBodyLimit: Int
        /// The port to bind on 127.0.0.1 (default 0: ephemeral).
        public var port: UInt16

        /// A configuration; every parameter has the documented default.
        public init(path: String = "/v3/messages", apiKey: String? = nil, requestBodyLimit: Int = 1 << 20,
                    port: UInt16 = 0) {
            self.path = path
            self.apiKey = apiKey
            self.requestBodyLimit = requestBodyLimit
            self.port = port
        }
    }
}
