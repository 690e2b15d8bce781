import BatchStore
import TestSupport

/// A new store in a temporary directory of its own, for one test: closed and removed when the test lets go of it.
final class TemporaryStore {
    let directory: TemporaryDirectory
    let store: BatchStateStore
    let opening: StoreOpening

    init() throws {
        directory = try TemporaryDirectory(prefix: "batchstore")
        (store, opening) = try BatchStateStore.open(path: directory.path("state.db"))
    }

    deinit {
        store.close()
        directory.remove()
    }
}
