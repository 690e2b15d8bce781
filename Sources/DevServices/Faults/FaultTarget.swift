/// Which requests (or presigned files) a fault applies to.
public enum FaultTarget: Sendable, Hashable {
    /// Every request of the service.
    case everything
    /// Requests whose decoded path starts with this prefix (for example `/trip-42/f1/`).
    case pathPrefix(String)
    /// One file id: the presign service's files with this id, and object-store requests whose key is
    /// `{batchId}/{fileId}/…` — the layout the presign service mints.
    case fileId(String)

    /// Whether a request with this decoded path (and file id, when known) is targeted.
    func matches(path: String, fileId: String?) -> Bool {
        switch self {
        case .everything: true
        case .pathPrefix(let prefix): path.hasPrefix(prefix)
        case .fileId(let id): fileId == id
        }
    }
}
