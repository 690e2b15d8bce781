extension EmbeddedServices {
    /// How the three services are set up; each part has its own documented defaults.
    public struct Configuration: Sendable {
        /// The object store's configuration.
        public var store: LocalObjectStore.Configuration
        /// The presign service's configuration.
        public var presign: PresignService.Configuration
        /// The message capture's configuration.
        public var messages: MessageCapture.Configuration

        /// A configuration; every part defaults to its own defaults.
        public init(store: LocalObjectStore.Configuration = .init(), presign: PresignService.Configuration = .init(),
                    messages: MessageCapture.Configuration = .init()) {
            self.store = store
            self.presign = presign
            self.messages = messages
        }
    }
}
