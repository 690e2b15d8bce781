import Foundation
import Glibc

/// A TCP connection to 127.0.0.1 kept open by a test: idle, or speaking raw HTTP — reading only when the test says,
/// so it can stand for a client that stops reading.
///
/// The reads that wait (`receive`, `drainsToEnd`) run on a thread of their own, never holding one of the cooperative
/// pool's few threads (two on a two-core machine) for seconds while other tests run.
///
/// `@unchecked Sendable`: a test drives a connection from one task, one call at a time (each read is awaited before
/// the next call), so its descriptor and buffer are never touched by two threads at once.
public final class HeldConnection: @unchecked Sendable {
    private var descriptor: Int32
    /// What was read and not yet matched by ``receive(until:timeoutMilliseconds:)``.
    private var unmatched: [UInt8] = []

    /// Connects; nil when the connection is refused. `receiveBuffer` sets `SO_RCVBUF` before connecting, which keeps
    /// the window the client offers small: a client that stops reading then holds little of what is sent to it.
    public init?(port: UInt16, receiveBuffer: Int32? = nil) {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = LoopbackSocket.address(port: Int(port))
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            Glibc.close(descriptor)
            return nil
        }
    }

    /// Whether the server has closed the connection: end of stream or reset within `timeoutMilliseconds`.
    public func isClosedByPeer(timeoutMilliseconds: Int32 = 10_000) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutMilliseconds) == 1 else { return false }
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, 0) <= 0
    }

    /// Writes `text` whole (a request head, say); false when the connection refused it.
    @discardableResult
    public func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Reads until `marker` has arrived, within `timeoutMilliseconds`; what came before it and the marker itself are
    /// let go. False when the time ran out or the connection ended first.
    public func receive(until marker: String, timeoutMilliseconds: Int = 10_000) async -> Bool {
        await onOwnThread { [self] in receiveNow(until: marker, timeoutMilliseconds: timeoutMilliseconds) }
    }

    private func receiveNow(until marker: String, timeoutMilliseconds: Int) -> Bool {
        let wanted = Array(marker.utf8)
        let deadline = Self.milliseconds() + timeoutMilliseconds
        while true {
            if let end = Self.end(of: wanted, in: unmatched) {
                unmatched.removeFirst(end)
                return true
            }
            // Only the tail that could still start the marker needs keeping.
            if unmatched.count > wanted.count { unmatched.removeFirst(unmatched.count - wanted.count) }
            guard case .bytes(let bytes) = read(before: deadline) else { return false }
            unmatched += bytes
        }
    }

    /// Reads and drops at least `byteCount` bytes (counting what an earlier ``receive(until:timeoutMilliseconds:)`` read past
    /// its marker); false when the time ran out or the connection ended first.
    public func receive(byteCount: Int, timeoutMilliseconds: Int = 10_000) async -> Bool {
        await onOwnThread { [self] in receiveNow(byteCount: byteCount, timeoutMilliseconds: timeoutMilliseconds) }
    }

    private func receiveNow(byteCount: Int, timeoutMilliseconds: Int) -> Bool {
        let deadline = Self.milliseconds() + timeoutMilliseconds
        var left = byteCount - unmatched.count
        unmatched = []
        while left > 0 {
            guard case .bytes(let bytes) = read(before: deadline) else { return false }
            left -= bytes.count
        }
        return true
    }

    /// Reads and drops whatever the server sent until it ends the connection; true when it did (end of stream or
    /// reset) within `timeoutMilliseconds`.
    public func drainsToEnd(timeoutMilliseconds: Int = 10_000) async -> Bool {
        await onOwnThread { [self] in drainsToEndNow(timeoutMilliseconds: timeoutMilliseconds) }
    }

    private func drainsToEndNow(timeoutMilliseconds: Int) -> Bool {
        let deadline = Self.milliseconds() + timeoutMilliseconds
        while true {
            switch read(before: deadline) {
            case .bytes: continue
            case .ended: return true
            case .timedOut: return false
            }
        }
    }

    public func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit {
        close()
    }

    private func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }

    private enum Read {
        case bytes(ArraySlice<UInt8>)
        /// End of stream, or a reset.
        case ended
        case timedOut
    }

    /// The next bytes the server sent, waiting at most until `deadline` (monotonic milliseconds).
    private func read(before deadline: Int) -> Read {
        let left = deadline - Self.milliseconds()
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard left > 0, poll(&poller, 1, Int32(left)) == 1 else { return .timedOut }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        return count > 0 ? .bytes(chunk[0..<count]) : .ended
    }

    private static func end(of marker: [UInt8], in bytes: [UInt8]) -> Int? {
        guard !marker.isEmpty, bytes.count >= marker.count else { return nil }
        for start in 0...(bytes.count - marker.count) where bytes[start] == marker[0] {
            if bytes[start..<start + marker.count].elementsEqual(marker) { return start + marker.count }
        }
        return nil
    }

    private static func milliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
    }
}
