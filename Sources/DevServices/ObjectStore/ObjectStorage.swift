import Foundation
import Glibc
import Synchronization

/// The object store's directory and its index: `objects/<key>` for stored objects, `partial/<uuid>` for uploads
/// in progress (renamed into place when complete, so a reader never sees a partial object).
///
/// Thread-safe: the index and the request log are behind a `Mutex`; file operations are atomic renames/unlinks.
final class ObjectStorage: Sendable {
    /// The store's directory.
    let root: URL
    private let objectsDirectory: URL
    private let partialDirectory: URL
    private let index = Mutex<[ObjectKey: StoredObject]>([:])
    private let log = Mutex<[ObjectRequestRecord]>([])

    /// Creates `root/objects` and `root/partial`, emptying the latter of an earlier run's leftovers.
    init(root: URL) throws {
        self.root = root
        objectsDirectory = root.appendingPathComponent("objects", isDirectory: true)
        partialDirectory = root.appendingPathComponent("partial", isDirectory: true)
        do {
            try? FileManager.default.removeItem(at: partialDirectory)
            try FileManager.default.createDirectory(at: objectsDirectory, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: partialDirectory, withIntermediateDirectories: true)
        } catch {
            throw DevServicesError.storage("cannot prepare \(root.path): \(error)")
        }
    }

    /// The stored object for `key`, if any.
    func object(_ key: ObjectKey) -> StoredObject? {
        index.withLock { $0[key] }
    }

    /// Every stored object, by key.
    var objects: [StoredObject] {
        index.withLock { Array($0.values) }.sorted { $0.key < $1.key }
    }

    /// A new partial file (mode 0600) and its path, or nil when it cannot be created.
    func createPartial() -> (descriptor: Int32, path: String)? {
        let path = partialDirectory.appendingPathComponent(UUID().uuidString).path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        return descriptor >= 0 ? (descriptor, path) : nil
    }

    /// Moves a complete partial file into place as `key` and indexes it; false when the key's path is taken by
    /// a directory or a file stands where a directory is needed.
    func commit(partial: String, as key: ObjectKey, size: Int64, sha256: String, contentType: String?) -> Bool {
        let destination = objectsDirectory.appendingPathComponent(key.rawValue)
        do {
            try FileManager.default.createDirectory(
                at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            return false
        }
        // Index and rename under one lock, so concurrent uploads of one key agree on which bytes won.
        return index.withLock { index in
            guard rename(partial, destination.path) == 0 else { return false }
            index[key] = StoredObject(key: key.rawValue, size: size, sha256: sha256,
                                      contentType: contentType, file: destination)
            return true
        }
    }

    /// Deletes `key`'s object; deleting a missing object is not an error (as in S3).
    func remove(_ key: ObjectKey) {
        index.withLock { index in
            guard let object = index.removeValue(forKey: key) else { return }
            unlink(object.file.path)
        }
    }

    /// Appends to the request log.
    func record(method: String, path: String, status: Int?, traceparent: String? = nil) {
        log.withLock { $0.append(ObjectRequestRecord(method: method, path: path, status: status, traceparent: traceparent)) }
    }

    /// Every request handled so far, in completion order.
    var requests: [ObjectRequestRecord] {
        log.withLock { $0 }
    }
}
