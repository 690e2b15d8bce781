import Foundation
import S3
import TestSupport
import Testing
import WireFormat

/// Large files survive anything (DESIGN §12): the real binary's multipart uploads into moto, handed from one worker
/// to the next by a `kill -9` or a clean rolling deploy, resume on the new owner with only the parts storage lacks;
/// a source that changed meanwhile starts again on a new upload; a removed or cleared file leaves no incomplete
/// upload behind.
///
/// What reached storage is counted by moto (its request log), not by the worker: a part cut off by the kill is there
/// too, answered 400. The first worker's upload rate is capped so the kill lands where the test means it to.
@Suite(.serialized, .motoServer, .timeLimit(.minutes(5))) struct MultipartResumeEndToEndTests {
    static let mebibyte = 1 << 20
    /// `upload.partSize` of every test: the smallest S3 allows, so a kill costs the least.
    static let partSize = 5 * mebibyte
    /// The parts a multipart upload sends at once (`upload.multipartThreshold`: four at a time).
    static let partConcurrency = 4

    @Test func aWorkerKilledAtSixtyPercentIsFinishedByTheNextOwnerSendingOnlyTheMissingParts() async throws {
        let size = 256 * Self.mebibyte
        var rig = try await Rig.make(name: "resume-kill", size: size)
        defer { rig.removeSource() }
        // 32 MiB/s: 60 % after about five seconds, in parts stored four at a time.
        let (first, second) = try await rig.startPair(firstRate: "32MiB")
        defer { first.signal(SIGKILL); second.signal(SIGKILL) }

        // Watched in moto's log, which costs nothing to read: the events topic is a kcat run away, too slow to aim by.
        let storedAtKill = try await eventually("the first worker to store 60 % of the file", timeout: .seconds(90), every: .milliseconds(10)) {
            () -> Int? in
            try rig.checkRunning(first)
            let stored = rig.bucket.requests(on: rig.key).filter { $0.isUploadPart && $0.status == 200 }.count
            return stored * Self.partSize >= size * 6 / 10 ? stored : nil
        }
        first.signal(SIGKILL)
        _ = await first.waitForExit(timeout: .seconds(10))
        #expect(storedAtKill < rig.partNumbers.count, "the kill came before the end")
        let recorded = try #require(try await rig.recordedUpload(), "the upload is in the first worker's last snapshot")

        try await rig.waitUntilCompleted(timeout: .seconds(120), log: [first, second])
        let log = rig.log(first, second)
        let parts = rig.partNumbers
        try await rig.expectStoredOnce(sha256: rig.sourceSHA256, by: second, log: log)

        let requests = rig.bucket.requests(on: rig.key)
        // The new owner asks storage for the recorded upload (ListParts) before sending anything: what precedes it
        // came from the first worker.
        let resumed = try #require(requests.firstIndex { $0.method == "GET" && $0.query["uploadId"] == recorded.uploadId },
                                   "the new owner checked the recorded upload\(log)")
        let before = requests[..<resumed], after = requests[resumed...]
        let sentAfter = after.filter(\.isUploadPart)
        #expect(sentAfter.allSatisfy { $0.status == 200 && $0.query["uploadId"] == recorded.uploadId })
        #expect(sentAfter.compactMap { $0.query["partNumber"].flatMap(Int.init) }.sorted() == parts.filter { !recorded.parts.contains($0) },
                "exactly the parts the last snapshot lacked, each once\(log)")
        #expect(!after.contains { $0.method == "POST" && $0.query["uploads"] != nil }, "no new upload")
        #expect(after.filter { $0.method == "POST" && $0.query["uploadId"] == recorded.uploadId }.map(\.status) == [200], "completed once")

        let storedBefore = before.filter { $0.isUploadPart && $0.status == 200 }.compactMap { $0.query["partNumber"].flatMap(Int.init) }
        let cut = before.filter { $0.isUploadPart && $0.status != 200 }
        #expect(Set(storedBefore).isSuperset(of: recorded.parts))
        // Sent again: the parts in flight at the kill (cut off) and those stored after the last snapshot went out —
        // at most the parts that were in flight when it was taken.
        let storedTwice = storedBefore.filter { !recorded.parts.contains($0) }
        #expect(cut.count <= Self.partConcurrency && storedTwice.count <= Self.partConcurrency, "\(cut.count) cut, \(storedTwice) sent twice")
        let total = requests.filter(\.isUploadPart).count
        #expect(total <= parts.count + 2 * Self.partConcurrency)
        print("resume after kill -9 at \(storedAtKill * Self.partSize * 100 / size) % stored: \(total) UploadPart requests for \(parts.count) parts "
              + "(\(recorded.parts.count) recorded, \(storedTwice.count) stored again, \(cut.count) cut off)")

        // Progress on the new owner starts at the bytes stored, never at 0.
        let firstProgress = try #require(try await rig.progress(by: second).first)
        #expect(firstProgress >= rig.bytes(ofParts: recorded.parts), "first progress \(firstProgress)")
        #expect(rig.bytes(ofParts: recorded.parts) >= size * 4 / 10, "most of the 60 % was recorded as stored")
    }

    @Test func aRollingDeployHandsTheUploadOverAndTheNewOwnerResumesIt() async throws {
        let size = 64 * Self.mebibyte
        var rig = try await Rig.make(name: "resume-deploy", size: size)
        defer { rig.removeSource() }
        // A grace shorter than the rest of the upload: the first worker hands it over unfinished.
        let (first, second) = try await rig.startPair(firstRate: "8MiB", firstExtra: [
            "ATTACHE_WORKER_SHUTDOWN_GRACE": "2s", "ATTACHE_WORKER_REVOKE_GRACE": "1s",
        ])
        defer { first.signal(SIGKILL); second.signal(SIGKILL) }

        _ = try await eventually("the first worker to record stored parts", timeout: .seconds(90), every: .milliseconds(100)) {
            try await rig.recordedUpload().flatMap { $0.parts.count >= Self.partConcurrency ? true : nil }
        }
        first.signal(SIGTERM)
        #expect(await first.waitForExit(timeout: .seconds(30)) == 0, "clean leave\(rig.log(first, second))")
        let recorded = try #require(try await rig.recordedUpload())
        #expect(recorded.parts.count < rig.partNumbers.count, "handed over unfinished")

        try await rig.waitUntilCompleted(timeout: .seconds(90), log: [first, second])
        let log = rig.log(first, second)
        try await rig.expectStoredOnce(sha256: rig.sourceSHA256, by: second, log: log)
        let requests = rig.bucket.requests(on: rig.key)
        let parts = requests.filter(\.isUploadPart)
        // A clean leave snapshots every part it saw stored: only the parts in flight at the handover go again. One of
        // those may still be stored although the worker cut it off (storage had its last byte before the cancel), so
        // it can be stored twice — never a part the snapshot holds.
        let stored = parts.filter { $0.status == 200 }.compactMap { $0.query["partNumber"].flatMap(Int.init) }
        #expect(Set(stored) == Set(rig.partNumbers), "every part stored\(log)")
        let storedTwice = rig.partNumbers.filter { part in stored.count { $0 == part } > 1 }
        #expect(storedTwice.allSatisfy { !recorded.parts.contains($0) } && storedTwice.count <= Self.partConcurrency,
                "only parts in flight at the handover stored again: \(storedTwice)\(log)")
        #expect(parts.count <= rig.partNumbers.count + Self.partConcurrency, "\(parts.count) UploadPart requests")
        #expect(parts.allSatisfy { $0.query["uploadId"] == recorded.uploadId }, "one upload throughout")
        #expect(requests.filter { $0.method == "POST" && $0.query["uploads"] != nil }.count == 1)
        let firstProgress = try #require(try await rig.progress(by: second).first)
        #expect(firstProgress >= rig.bytes(ofParts: recorded.parts), "first progress \(firstProgress)")
        print("resume after a rolling deploy: \(parts.count) UploadPart requests for \(rig.partNumbers.count) parts "
              + "(\(recorded.parts.count) recorded)")
    }

    @Test func aSourceChangedBeforeTheResumeStartsANewUploadAndAbortsTheOld() async throws {
        let size = 40 * Self.mebibyte
        var rig = try await Rig.make(name: "resume-changed", size: size)
        defer { rig.removeSource() }
        let (first, second) = try await rig.startPair(firstRate: "8MiB")
        defer { first.signal(SIGKILL); second.signal(SIGKILL) }

        let recorded = try await eventually("the first worker to record stored parts", timeout: .seconds(90), every: .milliseconds(100)) {
            try await rig.recordedUpload().flatMap { $0.parts.isEmpty ? nil : $0 }
        }
        first.signal(SIGKILL)
        _ = await first.waitForExit(timeout: .seconds(10))
        // Same size, other bytes, in place of the file before the next owner stages it.
        let changed = try Rig.writeRandomFile(at: rig.sourceURL, size: size)
        #expect(changed != rig.sourceSHA256)

        try await rig.waitUntilCompleted(timeout: .seconds(90), log: [first, second])
        let log = rig.log(first, second)
        try await rig.expectStoredOnce(sha256: changed, by: second, log: log)
        let requests = rig.bucket.requests(on: rig.key)
        let created = requests.filter { $0.method == "POST" && $0.query["uploads"] != nil }
        #expect(created.count == 2, "a new upload\(log)")
        let aborts = Self.abortStatuses(in: requests, of: recorded.uploadId)
        #expect(Self.abortedOnce(aborts), "the old upload aborted, answered \(aborts)\(rig.bucket.server.printedNote)")
        let completed = try #require(requests.last { $0.method == "POST" && $0.query["uploadId"] != nil && $0.status == 200 })
        let newUpload = try #require(completed.query["uploadId"])
        #expect(newUpload != recorded.uploadId)
        let sentNew = requests.filter { $0.isUploadPart && $0.query["uploadId"] == newUpload }
        #expect(sentNew.compactMap { $0.query["partNumber"].flatMap(Int.init) }.sorted() == rig.partNumbers, "from part 1, each part once")
        #expect(sentNew.allSatisfy { $0.status == 200 })
    }

    @Test func removeAndClearMidUploadLeaveNoIncompleteUpload() async throws {
        let size = 60 * Self.mebibyte
        let removed = try await Rig.make(name: "resume-remove", size: size)
        defer { removed.removeSource() }
        // The cleared batch shares the first's topics and bucket: one worker uploads both.
        let cleared = try removed.sibling(batchId: "cleared-\(removed.topics.run)", size: size)
        defer { cleared.removeSource() }
        let worker = try removed.worker("only", rate: "16MiB")
        defer { worker.signal(SIGKILL) }
        try await removed.produceJob()
        try await cleared.produceJob()

        var uploads: [String] = []
        for rig in [removed, cleared] {
            let recorded = try await eventually("\(rig.batchId) to record stored parts", timeout: .seconds(90), every: .milliseconds(100)) {
                try await rig.recordedUpload().flatMap { $0.parts.isEmpty ? nil : $0 }
            }
            uploads.append(recorded.uploadId)
        }
        #expect(Set(try await removed.bucket.openUploads().map(\.uploadId)) == Set(uploads), "both under way in storage")

        try await Kcat.produce(brokers: removed.brokers, topic: removed.topics.jobs, [
            (removed.batchId, Jobs.control("remove", batchId: removed.batchId, fileId: removed.fileId)),
            (cleared.batchId, Jobs.control("clear", batchId: cleared.batchId)),
        ])
        for rig in [removed, cleared] {
            _ = try await eventually("\(rig.batchId)'s file to be removed", timeout: .seconds(60)) {
                try await rig.events().contains { $0.type == "attache.file.removed" && $0.fileId == rig.fileId } ? true : nil
            }
        }
        _ = try await eventually("storage to hold no incomplete upload", timeout: .seconds(30)) {
            try await removed.bucket.openUploads().isEmpty ? true : nil
        }
        for (rig, upload) in zip([removed, cleared], uploads) {
            let requests = rig.bucket.requests(on: rig.key)
            let aborts = Self.abortStatuses(in: requests, of: upload)
            #expect(Self.abortedOnce(aborts),
                    "\(rig.batchId): aborted once, answered \(aborts)\(rig.log(worker))\(rig.bucket.server.printedNote)")
            #expect(!requests.contains { $0.method == "POST" && $0.query["uploadId"] != nil }, "never completed")
            #expect(try await rig.bucket.sha256(ofObject: rig.key) == nil)
            #expect(try await rig.events().allSatisfy { $0.type != "attache.file.uploaded" })
        }
        #expect(try await removed.bucket.openUploads().isEmpty, "and none started again")
    }
}

extension MultipartResumeEndToEndTests {
    /// The answers to the AbortMultipartUpload requests for `upload`, in order.
    static func abortStatuses(in requests: [S3MotoRequest], of upload: String) -> [Int] {
        requests.filter { $0.method == "DELETE" && $0.query["uploadId"] == upload }.map(\.status)
    }

    /// Aborted once, after any number of 5xx answers retried. moto's abort walks the upload's parts while a part the
    /// abort cut off may still be landing in another of its threads ("dictionary changed size during iteration") and
    /// answers that with a 500, S3's InternalError, which a client is to retry.
    static func abortedOnce(_ statuses: [Int]) -> Bool {
        statuses.last == 204 && statuses.dropLast().allSatisfy { $0 >= 500 }
    }
}

extension MultipartResumeEndToEndTests {
    /// No orphaned parts (DESIGN §12): a worker with `storage.sweepInterval` aborts an upload of a batch it owns that
    /// the batch does not record, and leaves alone the upload the batch will resume and those of batches it does not
    /// know; `attache storage sweep`, reading the whole changelog, lists the upload of a batch that is gone as an
    /// orphan, the live one as kept, and aborts only the orphan with `--yes`.
    @Test func sweepsAbortTheUploadsNoBatchWillResumeAndLeaveTheLiveOne() async throws {
        let rig = try await Rig.make(name: "sweep", size: 40 * Self.mebibyte)
        defer { rig.removeSource() }
        let worker = try rig.worker("only", rate: "2MiB", extra: ["ATTACHE_STORAGE_SWEEP_INTERVAL": "1s"])
        defer { worker.signal(SIGKILL) }
        try await rig.produceJob()
        let live = try await eventually("the upload to be recorded", timeout: .seconds(90), every: .milliseconds(100)) {
            try await rig.recordedUpload()?.uploadId
        }
        let unrecorded = try await rig.bucket.plantUpload(key: rig.key)
        let goneKey = rig.bucket.key(batchId: "gone-\(rig.topics.run)", fileId: "f1", name: "old.bin")
        let gone = try await rig.bucket.plantUpload(key: goneKey)

        // moto dates every upload 2010, so both planted ones are old enough for the worker's sweep at once.
        _ = try await eventually("the worker to abort the upload its batch does not record", timeout: .seconds(30)) {
            try await rig.bucket.openUploads().contains { $0.uploadId == unrecorded } ? nil : true
        }
        #expect(Set(try await rig.bucket.openUploads().map(\.uploadId)) == [live, gone], "\(rig.log(worker))")
        #expect(worker.standardError.contains("aborted an orphaned multipart upload"))

        let settings = rig.topics.environment(rig.bucket.workerEnvironment()).merging([
            "ATTACHE_KAFKA_BROKERS": rig.brokers, "ATTACHE_KAFKA_JOBS_TOPIC": rig.topics.jobs,
        ]) { $1 }
        let listed = try await CommandLineTests.attache(["storage", "sweep", "--older-than", "1h"], environment: settings)
        #expect(listed.status == 0, "\(listed.error)")
        let lines = listed.output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("orphan") && $0.contains(gone) && $0.contains("its batch is gone") }, "\(listed.output)")
        #expect(lines.contains { $0.hasPrefix("kept") && $0.contains(live) && $0.contains("resumed by its batch") }, "\(listed.output)")
        #expect(lines.contains("2 incomplete uploads under 'uploads': 1 orphaned, 1 kept"), "\(listed.output)")
        #expect(Set(try await rig.bucket.openUploads().map(\.uploadId)) == [live, gone], "listing changes nothing")

        let swept = try await CommandLineTests.attache(["storage", "sweep", "--older-than", "1h", "--yes"], environment: settings)
        #expect(swept.status == 0, "\(swept.error)")
        #expect(swept.output.contains("aborted \(goneKey) \(gone)"))
        #expect(try await rig.bucket.openUploads().map(\.uploadId) == [live], "only the live upload is left")

        let refused = try await CommandLineTests.attache(["storage", "sweep"], environment: [
            "ATTACHE_KAFKA_BROKERS": rig.brokers, "ATTACHE_PRESIGN_URL": "http://127.0.0.1:1/presign",
        ])
        #expect(refused.status == 2 && refused.error.contains("presign.mode s3"), "\(refused.error)")
    }

    /// One test's topics (two partitions) on the shared 2.16 cluster, its bucket on the suite's moto, and one batch
    /// of one `path` source of random bytes.
    struct Rig {
        let environment: EndToEndEnvironment
        let brokers: String
        let topics: ChangelogTopics
        let bucket: MotoBucket
        let batchId: String
        let size: Int
        let sourceSHA256: String
        let fileId = "film"
        let name = "film.bin"
        /// The jobs partition the batch's records go to; nil: where its key hashes to.
        var partition: Int?

        static func make(name: String, size: Int) async throws -> Rig {
            let environment = try await EndToEndEnvironment.shared.value
            let cluster = try await ChangelogTopics.cluster.value
            let topics = ChangelogTopics(name: name)
            try await topics.create(on: cluster, partitions: 2, changelogPartitions: 2)
            let bucket = try await MotoBucket.create(on: try S3MotoServer.require())
            return try Rig(environment: environment, brokers: cluster.bootstrapServers, topics: topics, bucket: bucket,
                           batchId: "\(name)-\(topics.run)", size: size)
        }

        private init(environment: EndToEndEnvironment, brokers: String, topics: ChangelogTopics, bucket: MotoBucket, batchId: String,
                     size: Int) throws {
            self.environment = environment
            self.brokers = brokers
            self.topics = topics
            self.bucket = bucket
            self.batchId = batchId
            self.size = size
            let url = environment.sourceRoot.appendingPathComponent("\(batchId)/\(name)")
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            sourceSHA256 = try Self.writeRandomFile(at: url, size: size)
        }

        /// Another batch on the same topics and bucket.
        func sibling(batchId: String, size: Int) throws -> Rig {
            try Rig(environment: environment, brokers: brokers, topics: topics, bucket: bucket, batchId: batchId, size: size)
        }

        var sourceURL: URL { environment.sourceRoot.appendingPathComponent("\(batchId)/\(name)") }

        /// Removes the source and its directory: hundreds of MiB that outlive the run otherwise.
        func removeSource() {
            try? FileManager.default.removeItem(at: sourceURL.deletingLastPathComponent())
        }
        var key: String { bucket.key(batchId: batchId, fileId: fileId, name: name) }
        var partNumbers: [Int] { Array(1...((size + partSize - 1) / partSize)) }

        /// The bytes parts `numbers` hold.
        func bytes(ofParts numbers: Set<Int>) -> Int {
            numbers.reduce(0) { $0 + min(partSize, size - ($1 - 1) * partSize) }
        }

        /// Writes `size` random bytes to a new file moved over `url` (a new inode, as a tool replacing a file does);
        /// returns their hex SHA-256.
        static func writeRandomFile(at url: URL, size: Int) throws -> String {
            let scratch = url.deletingLastPathComponent().appendingPathComponent(".\(UUID().uuidString)")
            _ = FileManager.default.createFile(atPath: scratch.path, contents: nil)
            let random = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
            let output = try FileHandle(forWritingTo: scratch)
            let hasher = SHA256Hasher()
            var left = size
            while left > 0 {
                let chunk = try random.read(upToCount: min(left, 1 << 20)) ?? Data()
                hasher.update(chunk)
                try output.write(contentsOf: chunk)
                left -= chunk.count
            }
            try output.close()
            try random.close()
            guard rename(scratch.path, url.path) == 0 else { throw EndToEndFailure("rename to \(url.path): errno \(errno)") }
            return hasher.finalizeHex()
        }

        /// Throws when `worker` has exited, with the end of its log.
        func checkRunning(_ worker: ChildProcess) throws {
            guard worker.isRunning else { throw EndToEndFailure("\(worker.name) exited\(log(worker))") }
        }

        func worker(_ name: String, rate: String? = nil, extra: [String: String] = [:]) throws -> ChildProcess {
            var settings = topics.environment(bucket.workerEnvironment(partSize: "\(partSize / mebibyte)MiB"))
            settings["ATTACHE_LIMITS_FILE_SIZE_MAX"] = "1GiB"
            settings.merge(extra) { $1 }
            if let rate { settings["ATTACHE_UPLOAD_MAX_BYTES_PER_SECOND"] = rate }
            return try environment.startWorker(name: "\(batchId)-\(name)", group: topics.group, jobsTopic: topics.jobs,
                                               eventsTopic: topics.events, brokers: brokers, extra: settings)
        }

        /// Starts two workers at once, the first with its uploads capped at `firstRate`, so both join the group's
        /// first generation (a member joining later costs a rebalance of seconds on the mock); once each holds one
        /// partition, sends the job to the first's.
        mutating func startPair(firstRate: String, firstExtra: [String: String] = [:]) async throws -> (ChildProcess, ChildProcess) {
            let first = try worker("a", rate: firstRate, extra: firstExtra)
            let second: ChildProcess
            do {
                second = try worker("b")
            } catch {
                first.signal(SIGKILL)
                throw error
            }
            do {
                partition = try await eventually("each worker to hold one partition", timeout: .seconds(60)) { () -> Int? in
                    let mine = Self.owned(in: first.standardError, topic: topics.jobs)
                    let theirs = Self.owned(in: second.standardError, topic: topics.jobs)
                    return mine.count == 1 && theirs.count == 1 && mine != theirs ? mine.first : nil
                }
                try await produceJob()
                return (first, second)
            } catch {
                first.signal(SIGKILL)
                second.signal(SIGKILL)
                throw error
            }
        }

        /// The jobs partitions a worker's log says it holds: assigned and not released since.
        static func owned(in log: String, topic: String) -> Set<Int> {
            var partitions = Set<Int>()
            for line in log.split(separator: "\n") {
                let assigned = line.contains("partitions assigned")
                guard assigned || line.contains("partitions released") || line.contains("partitions lost") else { continue }
                for piece in line.components(separatedBy: "\(topic)[").dropFirst() {
                    guard let number = Int(piece.prefix { $0.isNumber }) else { continue }
                    if assigned { partitions.insert(number) } else { partitions.remove(number) }
                }
            }
            return partitions
        }

        func produceJob() async throws {
            let job = Jobs.upload(batchId: batchId, files: [
                Jobs.path(fileId, name: name, mimeType: "application/octet-stream", path: "\(batchId)/\(name)"),
            ])
            try await Kcat.produce(brokers: brokers, topic: topics.jobs, partition: partition, [(batchId, job)])
        }

        /// The batch's events so far.
        func events() async throws -> [ReceivedEvent] {
            try await Kcat.consume(brokers: brokers, topic: topics.events).compactMap { ReceivedEvent(json: $0.value) }
                .filter { $0.subject == batchId }
        }

        /// The `loaded` of the file's progress events published by `worker`, in order.
        /// - Throws: when the file was rejected or failed for good instead.
        func progress(by worker: ChildProcess) async throws -> [Int] {
            let events = try await events()
            if let refusal = events.first(where: { $0.type == "attache.file.rejected" || ($0.type == "attache.file.failed" && $0.data["willRetry"] == false) }) {
                throw EndToEndFailure("\(refusal.type): \(refusal.data)")
            }
            return events.filter { $0.type == "attache.file.progress" && $0.fileId == fileId && $0.source == "attache/\(worker.name)" }
                .compactMap { $0.data["loaded"]?.wholeNumber.map(Int.init) }
        }

        /// The file's multipart upload as the batch's last snapshot in the changelog records it.
        /// - Throws: when the snapshot says the file was rejected or failed.
        func recordedUpload() async throws -> (uploadId: String, parts: Set<Int>)? {
            guard let last = try await Kcat.consume(brokers: brokers, topic: topics.batches).last(where: { $0.key == batchId }),
                  let snapshot = try? JSONParser.parse(last.value.utf8),
                  let file = snapshot["files"]?.arrayValue?.first(where: { $0["fileId"]?.stringValue == fileId })
            else { return nil }
            if ["rejected", "failed"].contains(file["state"]?.stringValue) { throw EndToEndFailure("the file was given up: \(file)") }
            guard let upload = file["multipart"], let uploadId = upload["uploadId"]?.stringValue else { return nil }
            let parts = (upload["parts"]?.arrayValue ?? []).compactMap { $0["number"]?.wholeNumber.map(Int.init) }
            return (uploadId, Set(parts))
        }

        /// Waits for the batch to complete with its file uploaded.
        func waitUntilCompleted(timeout: Duration, log workers: [ChildProcess]) async throws {
            do {
                _ = try await eventually("the file to be uploaded and the batch completed", timeout: timeout) {
                    let events = try await events()
                    return events.contains { $0.type == "attache.batch.completed" && $0.fileIds(in: "successful") == [fileId] } ? true : nil
                }
            } catch {
                Issue.record("\(error)\(log(workers))")
                throw error
            }
        }

        /// The file was stored once, by `owner`, with bytes of `sha256`, and storage holds no incomplete upload.
        func expectStoredOnce(sha256: String, by owner: ChildProcess, log: String) async throws {
            let uploaded = try await events().filter { $0.type == "attache.file.uploaded" && $0.fileId == fileId }
            #expect(uploaded.map(\.source) == ["attache/\(owner.name)"], "one file.uploaded, from the new owner\(log)")
            #expect(try await events().allSatisfy { $0.type != "attache.file.failed" }, "no attempt failed on the way")
            #expect(uploaded.first?.data["attachment"]?["sha256"]?.stringValue == sha256)
            #expect(try await bucket.sha256(ofObject: key) == sha256, "the stored bytes")
            #expect(try await bucket.openUploads().isEmpty, "no incomplete upload left")
        }

        func log(_ workers: ChildProcess...) -> String { log(workers) }

        func log(_ workers: [ChildProcess]) -> String {
            workers.map { "\n\($0.name):\n\($0.standardError.suffix(6000))" }.joined()
        }
    }
}
