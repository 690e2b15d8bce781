import Foundation

extension LocalObjectStore {
    /// How a local object store is set up.
    public struct Configuration: Sendable {
        /// Where objects are kept; nil: a fresh temporary directory, deleted by `stop()`.
        public var directory: URL?
        /// Whether GET and HEAD work without a signature (default true).
        public var publicRead: Bool
        /// The largest object accepted; larger uploads answer 400 `EntityTooLarge` (default: no limit).
        public var maxObjectSize: Int64?
        /// The port to bind on 127.0.0.1 (default 0: ephemeral).
        public var port: UInt16

        /// A configuration; every parameter has the documented default.
        public init(directory: URL? = nil, publicRead: Bool = true, maxObjectSize: Int64? = nil, port: UInt16 = 0) {
            self.directory = directory
            self.publicRead = publicRead
            self.maxObjectSize = maxObjectSize
            self.port = port
        }
    }
}
