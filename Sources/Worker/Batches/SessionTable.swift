/// The registry's batches by id, keeping the count of busy ones (records waiting) up to date on
/// every change, so the backpressure check costs nothing however many idle batches are kept for retries.
///
/// Changes go through `update`, which finds the session once and changes it where it is: every record touches its
/// batch's session several times, and a copy out and back in would cost two more lookups and a retain of every
/// field each time.
struct SessionTable: Sendable {
    private var storage: [String: BatchSession] = [:]
    /// Sessions with records waiting.
    private(set) var busyCount = 0

    /// Reads one field or two of a session without copying the rest; nil when there is none.
    func read<Result>(_ batchId: String, _ body: (borrowing BatchSession) -> Result) -> Result? {
        guard let index = storage.index(forKey: batchId) else { return nil }
        return body(storage.values[index])
    }

    /// Adds a session under an id that has none.
    mutating func insert(_ session: BatchSession, for batchId: String) {
        precondition(storage.updateValue(session, forKey: batchId) == nil, "a batch id has one session")
        if session.isBusy { busyCount += 1 }
    }

    /// Changes one session in place; nil (and `body` not called) when there is none.
    @discardableResult
    mutating func update<Result>(_ batchId: String, _ body: (inout BatchSession) -> Result) -> Result? {
        guard let index = storage.index(forKey: batchId) else { return nil }
        let wasBusy = storage.values[index].isBusy
        let result = body(&storage.values[index])
        let isBusy = storage.values[index].isBusy
        if isBusy != wasBusy { busyCount += isBusy ? 1 : -1 }
        return result
    }

    @discardableResult
    mutating func removeValue(forKey batchId: String) -> BatchSession? {
        guard let removed = storage.removeValue(forKey: batchId) else { return nil }
        if removed.isBusy { busyCount -= 1 }
        // A dictionary never gives back the capacity a burst of batches grew it to.
        if storage.capacity > 1024, storage.count < storage.capacity / 8 {
            storage = Dictionary(uniqueKeysWithValues: storage.map { ($0.key, $0.value) })
        }
        return removed
    }

    var count: Int { storage.count }

    /// Sessions the table has room for without growing.
    var capacity: Int { storage.capacity }

    func filter(_ isIncluded: ((key: String, value: BatchSession)) -> Bool) -> [String: BatchSession] {
        storage.filter(isIncluded)
    }
}

extension BatchSession {
    /// Records wait for it (a send a record triggered keeps it waiting): it counts against
    /// `worker.maxInFlightBatches`.
    var isBusy: Bool { !waiting.isEmpty }
}
