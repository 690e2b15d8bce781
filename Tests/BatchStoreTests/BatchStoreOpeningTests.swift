import BatchStore
import Foundation
import TestSupport
import Testing

@Suite struct BatchStoreOpeningTests {
    typealias F = BatchStoreFixtures

    /// A store at `path` holding `count` batches of partition 0 with checkpoint `count`, closed again.
    private func makeStore(at path: String, count: Int = 3) throws {
        let (store, _) = try BatchStateStore.open(path: path)
        try store.apply((0..<count).map { F.change("b-\($0)", offset: Int64($0)) }, partition: 0, checkpoint: Int64(count))
        store.close()
    }

    private func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    /// Overwrites the header field `PRAGMA user_version` reads (4 bytes, big-endian, at offset 60).
    private func stampUserVersion(_ version: UInt32, at path: String) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: 60)
        try handle.write(contentsOf: withUnsafeBytes(of: version.bigEndian) { Data($0) })
    }

    private func expectRebuiltAndEmpty(_ path: String, reasonMentions expected: String) throws {
        let (store, opening) = try BatchStateStore.open(path: path)
        defer { store.close() }
        guard case .rebuilt(let reason) = opening else {
            Issue.record("expected .rebuilt, got \(opening)")
            return
        }
        #expect(reason.contains(expected), "reason: \(reason)")
        #expect(try store.checkpoint(partition: 0) == nil)
        #expect(try store.batchCount(partition: 0) == 0)
        // The new store works.
        try store.apply([F.change("b-new", offset: 0)], partition: 0, checkpoint: 1)
        #expect(try store.batchCount(partition: 0) == 1)
    }

    @Test func aMissingFileIsCreatedWithItsDirectoriesAndPrivateModes() throws {
        let directory = try TemporaryDirectory(prefix: "batchstore")
        defer { directory.remove() }
        let path = directory.path("staging/nested/state.db")

        let (store, opening) = try BatchStateStore.open(path: path)
        defer { store.close() }
        try store.apply([F.change("b-1", offset: 0)], partition: 0, checkpoint: 1)

        #expect(opening == .created)
        #expect(try mode(path) == 0o600)
        // WAL journalling is on: the write went to the -wal file, which has the database file's mode.
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(try mode(path + "-wal") == 0o600)
    }

    @Test func anEmptyFileCountsAsNoStore() throws {
        let directory = try TemporaryDirectory(prefix: "batchstore")
        defer { directory.remove() }
        let path = directory.path("state.db")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))

        let (store, opening) = try BatchStateStore.open(path: path)
        defer { store.close() }

        #expect(opening == .created)
    }

    @Test func reopeningKeepsRowsAndCheckpoints() throws {
        let directory = try TemporaryDirectory(prefix: "batchstore")
        defer { directory.remove() }
        let path = directory.path("state.db")
        let (first, _) = try BatchStateStore.open(path: path)
        let pending = F.change("b-1", offset: 41, pending: true, updatedAt: 5)
        try first.apply([pending, F.change("b-2", offset: 42)], partition: 1, checkpoint: 43)
        try first.apply([F.change("b-3", offset: 7)], partition: 2, checkpoint: 8)
        first.close()
        #expect(chmod(path, 0o644) == 0)

        let (store, opening) = try BatchStateStore.open(path: path)
        defer { store.close() }

        #expect(opening == .opened)
        #expect(try mode(path) == 0o600)
        #expect(try store.checkpoint(partition: 1) == 43)
        #expect(try store.checkpoint(partition: 2) == 8)
        #expect(try store.batch(partition: 1, batchId: "b-1") == F.stored(pending, partition: 1))
        #expect(try store.pendingBatches(partition: 1) == [F.stored(pending, partition: 1)])
        #expect(try store.batchCount(partition: 1) == 2)
        #expect(try store.batchCount(partition: 2) == 1)
    }

    @Test func committedChangesSurviveAProcessThatNeverClosedTheStore() throws {
        let directory = try TemporaryDirectory(prefix: "batchstore")
        defer { directory.remove() }
        let path = directory.path("live/state.db")
        let (live, _) = try BatchStateStore.open(path: path)
        defer { live.close() }
        try live.apply((0..<50).map { F.change("b-\($0)", offset: Int64($0)) }, partition: 0, checkpoint: 50)
        try live.apply([.tombstone(batchId: "b-0", offset: 50), F.change("b-1", offset: 51, version: 2)],
                       partition: 0, checkpoint: 52)

        // What a crash leaves on disk: the database and its WAL as they are while the connection is open (the -shm
        // index is left behind; SQLite rebuilds it from the WAL).
        let crashed = directory.path("crashed/state.db")
        try FileManager.default.createDirectory(atPath: directory.path("crashed"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path, toPath: crashed)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: crashed + "-wal")

        let (store, opening) = try BatchStateStore.open(path: crashed)
        defer { store.close() }

        #expect(opening == .opened)
        #expect(try store.checkpoint(partition: 0) == 52)
        #expect(try store.batchCount(partition: 0) == 49)
        #expect(try store.batch(partition: 0, batchId: "b-0") == nil)
        #expect(try store.batch(partition: 0, batchId: "b-1") == F.stored(F.change("b-1", offset: 51, version: 2), partition: 0))
    }

    @Test func aFileOfRandomBytesIsRebuilt() throws {
        let directory = try TemporaryDirectory(prefix: "batchstore")
        defer { directory.remove() }
        let path = directory.path("state.db")
        var generator = SystemRandomNumberGenerator()
        let garbage = Data((0..<65_536).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        #expect(FileManager.default.createFile(atPath: path, contents: garbage))
        #expect(FileManager.default.createFile(atPath: path + "-wal", contents: garbage.prefix(4096)))

        try expectRebuiltAndEmpty(path, reasonMentions: "SQLITE_NOTADB")
    }

    @Test func aTruncatedDatabaseIsRebuilt() throws {
        let directory = try TemporaryDirectory(prefix: "batchstore")
        defer { directory.remove() }
        let path = directory.path("state.db")
        try makeStore(at: path, count: 2_000)
        let size = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(truncate(path, off_t(size / 2)) == 0)

        try expectRebuiltAndEmpty(path, reasonMentions: "SQLITE_CORRUPT")
    }

    @Test func aDatabaseDamagedInsideIsRebuilt() throws {
        let directory = try TemporaryDirectory(prefix: "batchstore")
        defer { directory.remove() }
        let path = directory.path("state.db")
        try makeStore(at: path, count: 2_000)
        // Zero everything after the first 32 KiB: the file keeps its size and header, so only the check sees it.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: 32_768)
        try handle.write(contentsOf: Data(count: Int(size) - 32_768))
        try handle.close()

        try expectRebuiltAndEmpty(path, reasonMentions: "PRAGMA quick_check: Page")
    }

    /// 2: a later build's store; 0: tables without a version (not a store this code wrote).
    @Test(arguments: [UInt32(2), 0])
    func aStoreOfAnotherSchemaVersionIsRebuilt(version: UInt32) throws {
        let directory = try TemporaryDirectory(prefix: "batchstore")
        defer { directory.remove() }
        let path = directory.path("state.db")
        try makeStore(at: path)
        try stampUserVersion(version, at: path)

        try expectRebuiltAndEmpty(path, reasonMentions: "schema version \(version)")
    }

    @Test func aStoreInUseIsNeitherOpenedTwiceNorRebuilt() throws {
        let directory = try TemporaryDirectory(prefix: "batchstore")
        defer { directory.remove() }
        let path = directory.path("state.db")
        let (owner, _) = try BatchStateStore.open(path: path)
        defer { owner.close() }
        try owner.apply([F.change("b-1", offset: 0)], partition: 0, checkpoint: 1)

        let error = #expect(throws: BatchStoreError.self) { try BatchStateStore.open(path: path, busyTimeout: .zero) }

        #expect(error?.code == .busy)
        #expect(error?.isRetryable == true)
        #expect(try owner.checkpoint(partition: 0) == 1)
        #expect(try owner.batchCount(partition: 0) == 1)
        owner.close()
        let (store, opening) = try BatchStateStore.open(path: path, busyTimeout: .zero)
        defer { store.close() }
        #expect(opening == .opened)
        #expect(try store.batchCount(partition: 0) == 1)
    }

    @Test func aDirectoryInPlaceOfTheFileIsAnErrorNotARebuild() throws {
        let directory = try TemporaryDirectory(prefix: "batchstore")
        defer { directory.remove() }
        let path = directory.path("state.db")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let modeBefore = try mode(path)

        #expect(throws: BatchStoreError.self) { try BatchStateStore.open(path: path) }
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue)
        #expect(try mode(path) == modeBefore)
    }
}
