/// The transport faults claimed for one request.
struct FaultShape {
    /// Body bytes after which the connection is closed.
    var dropAfter: Int?
    /// Body bytes after which the request stalls (cleared once it has stalled).
    var stallAfter: Int?
    /// How long a stall lasts; nil until released.
    var stallDuration: Duration?
    /// Request body read rate, bytes per second.
    var requestRate: Int?
    /// Response body send rate, bytes per second.
    var responseRate: Int?
}
