/// Where one file is in its life. `removed` is not a state: a removed file leaves the batch.
public enum FileState: String, Sendable, Hashable, Codable {
    case queued, staging, presigning, uploading
    case uploaded, failed, rejected

    /// Queued or in flight: the batch is in progress while any file is.
    public var isPending: Bool {
        switch self {
        case .queued, .staging, .presigning, .uploading: true
        case .uploaded, .failed, .rejected: false
        }
    }

    /// Holding a concurrency slot.
    public var isInFlight: Bool {
        switch self {
        case .staging, .presigning, .uploading: true
        default: false
        }
    }

    /// Occupying batch capacity: everything but rejected.
    public var occupiesCapacity: Bool { self != .rejected }
}

/// `inProgress` while any file is queued or in flight, else `idle` (an empty batch is idle).
public enum BatchStatus: String, Sendable, Hashable, Codable {
    case inProgress, idle
}

/// What a control did, so the caller can report no-ops.
public enum ControlOutcome: String, Sendable, Hashable {
    case applied
    /// No file with that id is in the batch.
    case unknownFile
    /// The file exists but the control does not apply to its state (e.g. retrying a file that has not failed).
    case notApplicable
}
