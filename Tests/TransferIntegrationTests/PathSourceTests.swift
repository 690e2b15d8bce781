import DevServices
import Foundation
import S3
import TestSupport
import Testing
import UploadEngine
import WireFormat

/// `path` sources through the whole engine, staging, presign client and uploader: never copied into staging, read
/// in place from the descriptor opened at staging (deleted or renamed meanwhile, the source still uploads), failed
/// for an attempt when changed in place, hashed by the upload's reads — or, when the digest is signed into the
/// upload, before it — and never a descriptor left open once the files leave the batch.
@Suite(.timeLimit(.minutes(1))) struct PathSourceTests {
    /// `mebibytes` MiB that differ from block to block (cheap to make in a debug build): larger than what loopback
    /// socket buffers hold, so a stalled upload cannot have read it all.
    static func largeBytes(mebibytes: Int = 32, seed: UInt64 = 1) -> Data {
        let block = TestBytes.make(1 << 20, seed: seed)
        var data = Data(capacity: mebibytes << 20)
        for index in 0..<mebibytes {
            var numbered = block
            numbered.replaceSubrange(0..<8, with: withUnsafeBytes(of: UInt64(index).littleEndian) { Data($0) })
            data.append(numbered)
        }
        return data
    }

    static func item(_ fileId: String) -> FileItem {
        FileItem(fileId: fileId, name: "\(fileId).bin", mimeType: "application/octet-stream", source: .path("\(fileId).bin"))
    }

    /// Replaces a source by a new file under the same name: a descriptor opened before still reads the old one.
    static func replace(_ harness: TransferHarness, _ fileId: String, with bytes: Data) throws {
        try bytes.write(to: harness.sourceRoot.appendingPathComponent("\(fileId).bin"), options: .atomic)
    }

    /// Overwrites a source in place, keeping its size, and moves its modification time on.
    static func overwrite(_ harness: TransferHarness, _ fileId: String, with bytes: Data) throws {
        let url = harness.sourceRoot.appendingPathComponent("\(fileId).bin")
        let handle = try FileHandle(forWritingTo: url)
        try handle.write(contentsOf: bytes)
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: url.path)
    }

    @Test func aPathSourceUploadsWithoutAStagingCopyAndItsDigestIsTheAttachments() async throws {
        let harness = try TransferHarness()
        defer { harness.stop() }
        let bytes = TestBytes.make(1_500_000, seed: 3)
        try harness.writeSource("f1.bin", bytes)
        let staging = Locked<Set<String>>([])
        harness.runner.setGlobalObserver { event in
            staging.update { $0.formUnion(harness.stagedFiles) }
            harness.recorder.record(event)
        }

        let result = try #require(await harness.run([Self.item("f1")]))

        #expect(result.successful.map(\.fileId) == ["f1"])
        let attachment = try #require(harness.attachment(of: "f1"))
        #expect(attachment.sha256 == SHA256Hasher.hex(of: bytes))
        let key = harness.key(fileId: "f1", name: "f1.bin")
        #expect(try harness.services.store.contents(ofKey: key) == bytes)
        #expect(harness.services.store.object(forKey: key)?.sha256 == attachment.sha256)
        #expect(staging.value.isEmpty, "nothing was ever copied into staging")
        #expect(await eventually { harness.openDescriptors == 0 })
    }

    /// Uploads `f1` holding `bytes`, and applies `change` to its source while storage holds the upload, after its
    /// first `stallAfter` bytes (a MiB); returns once the batch completed.
    static func upload(_ bytes: Data, in harness: TransferHarness, stallAfter: Int = 1 << 20,
                       changing change: () throws -> Void) async throws {
        try harness.writeSource("f1.bin", bytes)
        let store = harness.services.store
        store.faults.inject(.stall(afterBodyBytes: stallAfter), target: .fileId("f1"), times: 1)
        harness.runner.upload([Self.item("f1")], requestId: TransferHarness.requestId)
        #expect(await eventually { store.faults.stalledRequests == 1 })
        try change()
        store.faults.releaseStalls()
        await harness.recorder.waitForCompletions(1)
    }

    /// That `f1` was uploaded with `bytes`, their digest on its attachment, and its source closed.
    static func expectUploaded(_ bytes: Data, in harness: TransferHarness) async throws {
        #expect(harness.completions.last?.successful.map(\.fileId) == ["f1"])
        #expect(try harness.services.store.contents(ofKey: harness.key(fileId: "f1", name: "f1.bin")) == bytes)
        #expect(harness.attachment(of: "f1")?.sha256 == SHA256Hasher.hex(of: bytes))
        #expect(await eventually { harness.openDescriptors == 0 })
    }

    @Test(arguments: ["deleted", "renamed"])
    func aSourceDeletedOrRenamedDuringItsUploadStillUploadsItsOriginalBytes(change: String) async throws {
        let harness = try TransferHarness()
        defer { harness.stop() }
        let bytes = Self.largeBytes()

        try await Self.upload(bytes, in: harness) {
            let source = harness.sourceRoot.appendingPathComponent("f1.bin")
            if change == "deleted" {
                try FileManager.default.removeItem(at: source)
            } else {
                try FileManager.default.moveItem(at: source, to: harness.sourceRoot.appendingPathComponent("moved.bin"))
                try harness.writeSource("f1.bin", TestBytes.make(bytes.count, seed: 9))
            }
        }

        #expect(harness.failures(of: "f1").isEmpty)
        try await Self.expectUploaded(bytes, in: harness)
    }

    /// Large: the change lands while the upload still reads the source, and the digest still misses bytes when the
    /// attempt ends. Small: the whole file went out with the request head, so the attempt's end only compares the
    /// descriptor's size and time (no trip off the pool).
    @Test(arguments: ["large", "small"])
    func aSourceChangedInPlaceDuringItsUploadFailsTheAttemptAndTheRetryUploadsTheNewBytes(size: String) async throws {
        let harness = try TransferHarness(.init(maxAttempts: 2))
        defer { harness.stop() }
        let small = size == "small"
        let original = small ? TestBytes.make(16 * 1024, seed: 1) : Self.largeBytes(seed: 1)
        let changed = small ? TestBytes.make(16 * 1024, seed: 2) : Self.largeBytes(seed: 2)

        try await Self.upload(original, in: harness, stallAfter: small ? 8 * 1024 : 1 << 20) {
            try Self.overwrite(harness, "f1", with: changed)
        }

        let failure = try #require(harness.failures(of: "f1").first)
        #expect(failure.error.code == .sourceFetchFailed)
        #expect(failure.error.isRetryable && failure.willRetry)
        try await Self.expectUploaded(changed, in: harness)
    }

    @Test func failedFilesBeyondMaxOpenSourcesCloseTheirSourceAndTheRetryOpensItAgain() async throws {
        let harness = try TransferHarness(.init(maxOpenSources: 1))
        defer { harness.stop() }
        let first = TestBytes.make(200_000, seed: 1), second = TestBytes.make(200_000, seed: 2)
        try harness.writeSource("f1.bin", first)
        try harness.writeSource("f2.bin", second)
        let refusal = harness.services.store.faults.inject(.serverError(status: 503))

        let failed = try #require(await harness.run([Self.item("f1"), Self.item("f2")]))

        #expect(failed.failed.map(\.fileId) == ["f1", "f2"])
        #expect(harness.stager.sourcesKeptOpen == 1)
        #expect(await eventually { harness.openDescriptors == 1 }, "f1 keeps its source, f2 closed its own")
        let newer1 = TestBytes.make(200_000, seed: 11), newer2 = TestBytes.make(200_000, seed: 12)
        try Self.replace(harness, "f1", with: newer1)
        try Self.replace(harness, "f2", with: newer2)
        harness.services.store.faults.remove(refusal)
        #expect(harness.runner.retry(fileId: "f1") == .applied)
        #expect(harness.runner.retry(fileId: "f2") == .applied)
        await harness.recorder.waitForCompletions(2)

        let store = harness.services.store
        #expect(harness.completions.last?.successful.map(\.fileId) == ["f1", "f2"])
        #expect(try store.contents(ofKey: harness.key(fileId: "f1", name: "f1.bin")) == first, "read from the kept descriptor")
        #expect(try store.contents(ofKey: harness.key(fileId: "f2", name: "f2.bin")) == newer2, "opened again")
        #expect(harness.attachment(of: "f2")?.sha256 == SHA256Hasher.hex(of: newer2))
        #expect(harness.stager.sourcesKeptOpen == 0)
        #expect(await eventually { harness.openDescriptors == 0 })
    }

    @Test func noDescriptorIsLeftOpenOnceFilesLeaveTheBatchHoweverTheyLeave() async throws {
        let harness = try TransferHarness(.init(concurrency: 3))
        defer { harness.stop() }
        for index in 1...6 { try harness.writeSource("f\(index).bin", TestBytes.make(100_000, seed: UInt64(index))) }
        #expect(harness.openDescriptors == 0)
        harness.services.store.faults.inject(.serverError(status: 503), target: .fileId("f3"))
        harness.services.store.faults.inject(.serverError(status: 503), target: .fileId("f6"))

        let first = try #require(await harness.run((1...4).map { Self.item("f\($0)") }))
        #expect(first.successful.map(\.fileId) == ["f1", "f2", "f4"])
        #expect(await eventually { harness.openDescriptors == 1 }, "only the failed file holds its source")
        #expect(harness.runner.remove(fileId: "f3") == .applied)
        #expect(await eventually { harness.openDescriptors == 0 }, "removed")
        harness.runner.upload([Self.item("f5"), Self.item("f6")], requestId: "req-2")
        await harness.recorder.waitForCompletions(2)
        #expect(await eventually { harness.openDescriptors == 1 })
        harness.runner.clear()

        #expect(await eventually { harness.openDescriptors == 0 }, "cleared")
        #expect(harness.stager.sourcesKeptOpen == 0)
        #expect(harness.stagedFiles.isEmpty)
    }
}

/// `presign.mode = s3` signs each file's SHA-256 into its upload (`x-amz-checksum-sha256`) and storage verifies it,
/// so a path source is hashed in a read pass of its own before the upload.
extension PathSourceTests {
    /// What the digest-signing presigner saw, and what it does once before its first answer.
    final class SignedDigests: Sendable {
        let seen = Locked<[String]>([])
        let beforeFirstAnswer = Locked<(@Sendable () throws -> Void)?>(nil)
    }

    /// Signs each file's digest into its upload as the S3 presigner does, over the presign service's targets.
    struct DigestSigningPresigner: Presigner {
        let inner: any Presigner
        let record: SignedDigests

        func presign(_ files: [PresignFile], in context: BatchContext) async throws -> [String: PresignOutcome] {
            record.seen.update { $0 += files.map(\.sha256) }
            let answers = try await inner.presign(files, in: context)
            try record.beforeFirstAnswer.update { hook in
                defer { hook = nil }
                return hook
            }?()
            let digests = Dictionary(uniqueKeysWithValues: files.map { ($0.fileId, $0.sha256) })
            return Dictionary(uniqueKeysWithValues: answers.map { fileId, outcome in
                guard case .target(var target) = outcome, let checksum = digests[fileId].flatMap(S3Checksum.base64(sha256Hex:))
                else { return (fileId, outcome) }
                target.headers.append(HTTPHeader(S3Checksum.sha256Header, checksum))
                return (fileId, .target(target))
            })
        }
    }

    /// A harness in `s3` mode: digests signed, two attempts.
    static func s3Mode(_ record: SignedDigests) -> TransferHarness.Options {
        TransferHarness.Options(
            maxAttempts: 2, presigner: { DigestSigningPresigner(inner: $0, record: record) }, signsDigest: true)
    }

    /// Sizes on both sides of `StagingArea.inlineDigestBytes`: hashed in the trip that opens the source, or in a
    /// pass of its own under the per-core cap.
    static let digestSizes = [16 * 1024, 900_000]

    @Test(arguments: digestSizes)
    func aPathSourceIsHashedBeforeItsUploadAndStorageVerifiesTheSignedDigest(size: Int) async throws {
        let record = SignedDigests()
        let harness = try TransferHarness(Self.s3Mode(record))
        defer { harness.stop() }
        let bytes = TestBytes.make(size, seed: 4)
        try harness.writeSource("f1.bin", bytes)

        let result = try #require(await harness.run([Self.item("f1")]))

        let digest = SHA256Hasher.hex(of: bytes)
        #expect(result.successful.map(\.fileId) == ["f1"])
        #expect(record.seen.value == [digest], "known before the presign call")
        #expect(harness.attachment(of: "f1")?.sha256 == digest)
        #expect(harness.services.store.object(forKey: harness.key(fileId: "f1", name: "f1.bin"))?.sha256 == digest)
        #expect(harness.stagedFiles.isEmpty)
    }

    @Test(arguments: digestSizes)
    func aSourceChangedAfterItsDigestWasSignedIsRefusedByStorageAndTheRetryHashesItAgain(size: Int) async throws {
        let record = SignedDigests()
        let harness = try TransferHarness(Self.s3Mode(record))
        defer { harness.stop() }
        let original = TestBytes.make(size, seed: 5), changed = TestBytes.make(size, seed: 6)
        try harness.writeSource("f1.bin", original)
        record.beforeFirstAnswer.update { $0 = { try PathSourceTests.overwrite(harness, "f1", with: changed) } }

        let result = try #require(await harness.run([Self.item("f1")]))

        #expect(harness.failures(of: "f1").map(\.error.code) == [.sourceFetchFailed])
        let puts = harness.services.store.requests.filter { $0.method == "PUT" }
        if size <= 64 << 10 {
            // A file this small is uploaded from the bytes its hashing read held (Staging's OpenSource): what was
            // signed went out and storage took it; the check at the attempt's end found the source changed.
            #expect(puts.count == 2 && !puts.contains { $0.status == 400 }, "the hashed bytes, then the retry's")
        } else {
            #expect(puts.contains { $0.status == 400 }, "BadDigest: the upload read the changed bytes")
        }
        #expect(result.successful.map(\.fileId) == ["f1"])
        #expect(record.seen.value == [SHA256Hasher.hex(of: original), SHA256Hasher.hex(of: changed)])
        #expect(harness.attachment(of: "f1")?.sha256 == SHA256Hasher.hex(of: changed))
        #expect(try harness.services.store.contents(ofKey: harness.key(fileId: "f1", name: "f1.bin")) == changed)
    }
}
