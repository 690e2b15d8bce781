import EmbeddedHTTP

extension EmbeddedHTTPServer {
    /// A dev service's server on 127.0.0.1:`port` (0 = ephemeral), with the server's default limits.
    ///
    /// - Throws: `DevServicesError.startFailed` carrying the server's reason, so every dev service reports its
    ///   start failures the same way.
    static func loopback(port: UInt16,
                         handler: @escaping @Sendable (HTTPRequestHead) -> HTTPRequestAction) throws -> EmbeddedHTTPServer {
        do {
            return try EmbeddedHTTPServer(host: "127.0.0.1", port: port, handler: handler)
        } catch let error as EmbeddedHTTPError {
            throw DevServicesError.startFailed(error.description)
        }
    }
}
