import LoopbackTestSupport
import Glibc

/// A minimal socket client, independent of Foundation and of the servers under test.
///
/// Ephemeral ports are reused: once a server stops, a server of a parallel test may bind the same port. So tests
/// prove a stopped server is gone by what it no longer does (its record does not grow, its held connections are
/// closed), not by a refused connect alone.
enum LoopbackProbe {
    /// Whether a TCP connection to 127.0.0.1:`port` is accepted right now.
    static func acceptsConnections(port: UInt16) -> Bool {
        guard let connection = HeldConnection(port: port) else { return false }
        connection.close()
        return true
    }
}

