/// The registry's batches by id, keeping the set of busy ones (records waiting or a send under way) up to date on
/// every write, so the backpressure check costs nothing however many idle batches are kept for retries.
struct SessionTable: Sendable {
    private var storage: [String: BatchSession] = [:]
    private(set) var busy: Set<String> = []

    subscript(batchId: String) -> BatchSession? {
        get { storage[batchId] }
        set {
            storage[batchId] = newValue
            if let session = newValue, !session.waiting.isEmpty || session.sending {
                busy.insert(batchId)
            } else {
                busy.remove(batchId)
            }
        }
    }

    @discardableResult
    mutating func removeValue(forKey batchId: String) -> BatchSession? {
        busy.remove(batchId)
        return storage.removeValue(forKey: batchId)
    }

    var count: Int { storage.count }

    func filter(_ isIncluded: ((key: String, value: BatchSession)) -> Bool) -> [String: BatchSession] {
        storage.filter(isIncluded)
    }
}
