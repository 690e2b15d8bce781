/// What changed in the model since a reader last looked: the batches to send again, those forgotten, and which
/// panels changed. Merged until the hub publishes them, so the changes of one interval go out as one delta with the
/// latest state of everything that changed.
public struct ModelChanges: Sendable, Hashable {
    public var batches: Set<String> = []
    public var removed: Set<String> = []
    public var errors = false
    public var throughput = false
    public var workers = false
    public var deadLetters = false
    public var feed = false

    public init() {}

    public var isEmpty: Bool {
        batches.isEmpty && removed.isEmpty && !errors && !throughput && !workers && !deadLetters && !feed
    }

    mutating func changed(_ batchId: String) {
        batches.insert(batchId)
        removed.remove(batchId)
    }

    mutating func forgot(_ batchId: String) {
        batches.remove(batchId)
        removed.insert(batchId)
    }

    /// Adds later changes to these.
    public mutating func merge(_ later: ModelChanges) {
        for batchId in later.removed { forgot(batchId) }
        for batchId in later.batches { changed(batchId) }
        errors = errors || later.errors
        throughput = throughput || later.throughput
        workers = workers || later.workers
        deadLetters = deadLetters || later.deadLetters
        feed = feed || later.feed
    }
}
