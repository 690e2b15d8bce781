import Foundation

/// The files of a store on disk: the database and SQLite's `-wal`, `-shm` and `-journal` files beside it.
enum StoreFiles {
    /// The database file and the files SQLite keeps next to it.
    static func all(_ path: String) -> [String] {
        [path, path + "-wal", path + "-shm", path + "-journal"]
    }

    /// Creates the parent directory if missing, and the database file (empty, mode 0600) if missing; narrows the
    /// mode of files already there to 0600.
    ///
    /// SQLite gives the `-wal` and `-shm` files it creates the mode of the database file, so they are 0600 too.
    static func prepare(_ path: String) throws(BatchStoreError) {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw BatchStoreError(.fileSystem, "cannot create \(directory): \(error.localizedDescription)",
                                      operation: "open \(path)")
            }
        }
        // A path that cannot be opened here (a directory, no permission) is left for SQLite to report.
        let descriptor = Foundation.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if descriptor >= 0 { close(descriptor) }
        for file in all(path) where isRegularFile(file) {
            guard chmod(file, 0o600) == 0 else {
                throw BatchStoreError(.fileSystem, "cannot make \(file) private: \(String(cString: strerror(errno)))",
                                      operation: "open \(path)")
            }
        }
    }

    /// Whether `path` names a regular file (not a directory, not missing).
    private static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }

    /// Deletes the database file and the files beside it; a file already missing is fine.
    static func remove(_ path: String) throws(BatchStoreError) {
        for file in all(path) {
            guard unlink(file) == 0 || errno == ENOENT else {
                throw BatchStoreError(.fileSystem, "cannot delete \(file): \(String(cString: strerror(errno)))",
                                      operation: "rebuild \(path)")
            }
        }
    }
}
