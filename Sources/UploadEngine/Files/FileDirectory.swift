import FIFOQueueModule

/// Where a batch's files are, by id: the index that keeps intake O(1) per file instead of a scan of the batch.
///
/// Invariants the batch keeps (it is the only writer): `live` holds exactly the ids of its entries that are not
/// rejected — one per id, since a second live file under an id is rejected — so `live.count` is the capacity in use;
/// `rejected` holds the slots of its rejected entries by id. The order of rejections is kept lazily: a slot that
/// stopped being a held rejection stays in the queue until it reaches the front, so every operation is O(1) amortised.
struct FileDirectory: Sendable {
    /// The slot of the one live (non-rejected) file under each id.
    private(set) var live: [String: Int] = [:]
    /// Slots of rejected files under each id (usually one; a live file rejected late can add a second).
    private(set) var rejected: [String: [Int]] = [:]
    /// The slots of every held rejection.
    private var rejectedSlots: Set<Int> = []
    /// Slots in the order they were rejected, oldest first; may hold slots no longer rejected.
    private var rejectionOrder = FIFOQueue<Int>()

    /// Rejected files still held as entries.
    var rejectedCount: Int { rejectedSlots.count }

    /// Slots in the rejection queue, stale ones included: stays proportional to `rejectedCount`.
    var rejectionQueueLength: Int { rejectionOrder.count }

    mutating func addLive(_ fileId: String, slot: Int) {
        live[fileId] = slot
    }

    mutating func addRejected(_ fileId: String, slot: Int) {
        rejected[fileId, default: []].append(slot)
        rejectedSlots.insert(slot)
        rejectionOrder.append(slot)
        // Replaced rejections linger in the queue; dropping them once they outnumber the held ones keeps its size
        // proportional to what it holds, at O(1) amortised per rejection.
        if rejectionOrder.count > 2 * rejectedSlots.count + 64 {
            rejectionOrder.removeAll { !rejectedSlots.contains($0) }
        }
    }

    /// A live file became rejected.
    mutating func liveBecameRejected(_ fileId: String, slot: Int) {
        if live[fileId] == slot { live.removeValue(forKey: fileId) }
        addRejected(fileId, slot: slot)
    }

    /// Forgets every file under `fileId`, live and rejected.
    mutating func removeAll(_ fileId: String) {
        live.removeValue(forKey: fileId)
        removeRejected(fileId)
    }

    /// Forgets everything.
    mutating func removeAll() {
        self = FileDirectory()
    }

    /// Forgets the rejected files under `fileId`; returns their slots.
    @discardableResult
    mutating func removeRejected(_ fileId: String) -> [Int] {
        guard let slots = rejected.removeValue(forKey: fileId) else { return [] }
        for slot in slots { rejectedSlots.remove(slot) }
        return slots
    }

    /// The slot of the oldest rejection still held.
    mutating func oldestRejection() -> Int? {
        while let front = rejectionOrder.first, !rejectedSlots.contains(front) {
            rejectionOrder.dropFirst(1)
        }
        return rejectionOrder.first
    }

    /// Forgets the rejection in `slot` under `fileId`.
    mutating func dropRejection(slot: Int, fileId: String) {
        rejectedSlots.remove(slot)
        rejected[fileId]?.removeAll { $0 == slot }
        if rejected[fileId]?.isEmpty == true { rejected.removeValue(forKey: fileId) }
    }
}
