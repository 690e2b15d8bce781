import CMicroHTTPD
import Glibc
import Synchronization
import WireFormat

/// Owns one libmicrohttpd daemon on a socket bound here: thread per connection, plus MHD's listening thread.
///
/// The handler runs on the connection's thread (never on Swift's cooperative pool) and may block there.
///
/// `@unchecked Sendable`: `context` is written once in `init` and only released in `stop()` after the daemon
/// (taken exactly once from the `Mutex`) has joined every thread that could use it; all other state is a `Mutex`.
final class MicroHTTPDDaemon: @unchecked Sendable {
    /// The bound port.
    let port: UInt16
    private let daemon: Mutex<OpaquePointer?>
    private let context: UnsafeMutableRawPointer

    /// Binds `address`:`port` (0 = ephemeral) and starts serving `handler`.
    init(address: BindAddress, port: UInt16, idleTimeoutSeconds: UInt32, connectionLimit: UInt32,
         handler: @escaping @Sendable (HTTPRequestHead) -> HTTPRequestAction) throws(EmbeddedHTTPError) {
        let socket = try ListeningSocket(address: address, port: port)
        let core = Unmanaged.passRetained(DaemonCore(handler: handler)).toOpaque()
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue
            | MHD_USE_POLL.rawValue | MHD_USE_ITC.rawValue
        if case .ipv6 = address.family { flags |= MHD_USE_IPv6.rawValue }
        guard let started = attache_mhd_start_listening(flags, socket.descriptor, handleAccess, core, requestEnded, nil,
                                                        connectionLimit, idleTimeoutSeconds)
        else {
            // A daemon that did not start has not taken the socket over.
            socket.close()
            Unmanaged<DaemonCore>.fromOpaque(core).release()
            throw EmbeddedHTTPError(.startFailed, "libmicrohttpd could not start on \(address.hostText):\(socket.port)")
        }
        self.port = socket.port
        self.context = core
        self.daemon = Mutex(started)
    }

    /// Closes the listening socket and every connection, and joins their threads. Idempotent.
    ///
    /// Blocks until handlers return: release anything a handler may be waiting on first.
    func stop() {
        let running = daemon.withLock { daemon in
            defer { daemon = nil }
            return daemon
        }
        guard let running else { return }
        MHD_stop_daemon(running)
        // Every connection thread has been joined, so nothing can reach the core any more.
        Unmanaged<DaemonCore>.fromOpaque(context).release()
    }

    deinit {
        stop()
    }
}

/// What the daemon's C callbacks reach through their `cls` pointer.
private final class DaemonCore {
    let handler: @Sendable (HTTPRequestHead) -> HTTPRequestAction
    init(handler: @escaping @Sendable (HTTPRequestHead) -> HTTPRequestAction) { self.handler = handler }
}

/// MHD's access handler: head → handler, chunks → receiver, end of body → answer.
private func handleAccess(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?, _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let requestContext else { return .NO }
    guard let existing = requestContext.pointee else {
        let core = Unmanaged<DaemonCore>.fromOpaque(cls).takeUnretainedValue()
        let head = HTTPRequestHead(
            method: method.map { String(cString: $0) } ?? "",
            path: url.map { String(cString: $0) } ?? "/",
            query: queryItems(of: connection),
            headers: headers(of: connection))
        switch core.handler(head) {
        case .readBody(let receiver):
            requestContext.pointee = Unmanaged.passRetained(RequestExchange(receiver: receiver)).toOpaque()
            return .YES
        case .respond(let response):
            let exchange = RequestExchange()
            requestContext.pointee = Unmanaged.passRetained(exchange).toOpaque()
            return MicroHTTPDResponse.queue(response, on: connection, for: exchange)
        case .dropConnection:
            requestContext.pointee = Unmanaged.passRetained(RequestExchange()).toOpaque()
            return .NO
        }
    }
    let exchange = Unmanaged<RequestExchange>.fromOpaque(existing).takeUnretainedValue()
    if let uploadDataSize, uploadDataSize.pointee > 0 {
        let chunk = UnsafeRawBufferPointer(start: uploadData, count: uploadDataSize.pointee)
        uploadDataSize.pointee = 0
        return exchange.receive(chunk) ? .YES : .NO
    }
    guard let response = exchange.finish() else { return .NO }
    return MicroHTTPDResponse.queue(response, on: connection, for: exchange)
}

/// MHD's completion callback: balances the retain taken on the request's first call.
private func requestEnded(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ termination: MHD_RequestTerminationCode
) {
    guard let requestContext, let existing = requestContext.pointee else { return }
    requestContext.pointee = nil
    let exchange = Unmanaged<RequestExchange>.fromOpaque(existing).takeRetainedValue()
    exchange.end()
}

private func queryItems(of connection: OpaquePointer) -> [HTTPQueryItem] {
    var items: [HTTPQueryItem] = []
    withUnsafeMutablePointer(to: &items) { pointer in
        _ = MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            cls.assumingMemoryBound(to: [HTTPQueryItem].self).pointee
                .append(HTTPQueryItem(String(cString: key), value.map { String(cString: $0) }))
            return .YES
        }, pointer)
    }
    return items
}

private func headers(of connection: OpaquePointer) -> [HTTPHeader] {
    var headers: [HTTPHeader] = []
    withUnsafeMutablePointer(to: &headers) { pointer in
        _ = MHD_get_connection_values(connection, .HEADER_KIND, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            cls.assumingMemoryBound(to: [HTTPHeader].self).pointee
                .append(HTTPHeader(String(cString: key), value.map { String(cString: $0) } ?? ""))
            return .YES
        }, pointer)
    }
    return headers
}
