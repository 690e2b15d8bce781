import CMicroHTTPD
import Glibc
import Synchronization
import UploadEngine

/// Owns one libmicrohttpd daemon listening on 127.0.0.1: thread per connection, plus MHD's listening thread.
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

    /// Binds 127.0.0.1:`port` (0 = ephemeral) and starts serving `handler`.
    init(port: UInt16, idleTimeoutSeconds: UInt32, connectionLimit: UInt32,
         handler: @escaping @Sendable (HTTPRequestHead) -> HTTPRequestAction) throws {
        let core = Unmanaged.passRetained(DaemonCore(handler: handler)).toOpaque()
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue
            | MHD_USE_POLL.rawValue | MHD_USE_ITC.rawValue
        let started = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                attache_mhd_start(flags, port, handleAccess, core, requestEnded, nil,
                                  socketAddress, connectionLimit, idleTimeoutSeconds)
            }
        }
        guard let started else {
            Unmanaged<DaemonCore>.fromOpaque(core).release()
            throw DevServicesError.startFailed("libmicrohttpd could not listen on 127.0.0.1:\(port)")
        }
        let bound = attache_mhd_bound_port(started)
        guard bound != 0 else {
            MHD_stop_daemon(started)
            Unmanaged<DaemonCore>.fromOpaque(core).release()
            throw DevServicesError.startFailed("libmicrohttpd did not report its bound port")
        }
        self.port = bound
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
            requestContext.pointee = Unmanaged.passRetained(RequestExchange()).toOpaque()
            return MicroHTTPDResponse.queue(response, on: connection)
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
    return MicroHTTPDResponse.queue(response, on: connection)
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
