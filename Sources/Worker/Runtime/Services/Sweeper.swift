/// Every two seconds: expires batches idle for `worker.batchTTL` (in memory and in the store), gives back failed
/// files' bytes after `staging.retainFailed`, and returns the allocator's freed pages after batches left memory. A
/// timer, not an event: expiry and retention are about time passing.
struct Sweeper: Service {
    let registry: BatchRegistry
    let durable: DurableState?
    let batchTTL: Duration
    let retainFailed: Duration
    let assignment: @Sendable () -> Set<Int32>

    var name: String { "sweeper" }

    func run(until shutdown: ShutdownSignal) async {
        var trimmedAt = 0, seen = 0
        while await !shutdown.wait(upTo: .seconds(2)) {
            // Batches that left memory freed their heap, but glibc keeps freed pages in its arenas: give them back
            // every thousand batches, and once a burst is over, or resident memory stays at the run's peak.
            let evicted = registry.evictedCount
            if evicted > trimmedAt, evicted - trimmedAt >= 1000 || evicted == seen {
                MemoryRelease.trim()
                trimmedAt = evicted
            }
            seen = evicted
            registry.sweep(idleFor: batchTTL, retainFailed: retainFailed)
            durable?.expire(idleFor: batchTTL, partitions: assignment(), held: { registry.runner(for: $0) != nil })
        }
    }
}
