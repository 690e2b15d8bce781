/// Where one file of a batch stands, as the events told it (DESIGN §3's states, seen from outside a worker).
///
/// `retrying` is a failed attempt with another automatic one to come: the file is still pending. The raw values are
/// what the page shows and filters on.
public enum FileProgressState: String, Sendable, Hashable, CaseIterable {
    /// Declared by a job record, nothing published about it yet.
    case queued
    /// Bytes are going out (`file.progress`).
    case uploading
    case uploaded
    /// Failed with `willRetry`: another attempt follows.
    case retrying
    /// Failed for good: only a `retry` control uploads it again.
    case failed
    case rejected
    case removed

    /// Whether the batch still has work for this file: what makes a batch "in progress".
    public var isPending: Bool {
        switch self {
        case .queued, .uploading, .retrying: true
        case .uploaded, .failed, .rejected, .removed: false
        }
    }
}
