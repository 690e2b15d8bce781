import Foundation
@testable import S3
import Testing
import UploadEngine

@testable import HTTPTransport
import TestSupport
import WireFormat

/// `S3Storage` against a real moto server: single `PUT`s, multipart uploads with concurrent, retried parts,
/// completion errors, aborts and deletes. Faults are put between the storage and moto by a scripted transport.
@Suite(.motoServer, .timeLimit(.minutes(2))) struct S3StorageTests {
    static let mebibyte = 1024 * 1024
    static let context = BatchContext(batchId: "trip-42", receiver: Receiver(id: "u1", type: .user))

    /// Multipart above 5 MiB in 5 MiB parts; quick part retries.
    static func configuration(partConcurrency: Int = 4) -> S3Storage.Configuration {
        S3Storage.Configuration(
            multipartThreshold: Int64(5 * mebibyte), partSize: Int64(5 * mebibyte), partConcurrency: partConcurrency,
            partRetry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50)))
    }

    /// A staged file of `bytes`, its storage and its upload target.
    struct Setup {
        var fixture: S3IntegrationFixture
        var storage: S3Storage
        var transport: ScriptedStorageTransport
        var bytes: Data
        var transfer: UploadTransfer
        var key: String
    }

    /// `inPlace` stages the bytes as a source read in place (a `path` source) rather than a file.
    static func setUp(
        size: Int, configuration: S3Storage.Configuration = configuration(), partsTogether: Int = 1, inPlace: Bool = false,
        encryption: S3ServerSideEncryption? = nil,
        script: @escaping @Sendable (ScriptedStorageTransport.Call) -> ScriptedStorageTransport.Interposition? = { _ in nil }
    ) async throws -> Setup {
        let fixture = try await S3IntegrationFixture.make(serverSideEncryption: encryption)
        let client = try HTTPClient()
        let transport = ScriptedStorageTransport(client: client, partsTogether: partsTogether, script: script)
        let storage = S3Storage(
            presigner: fixture.presigner, transport: transport, singlePut: CurlUploader(client: client),
            configuration: configuration, clock: SystemClock())
        let bytes = S3IntegrationFixture.randomBytes(size)
        let path = try fixture.file(bytes).path
        let sha256 = SHA256Hasher.hex(of: bytes)
        let file = PresignFile(fileId: "f1", name: "movie.mp4", mimeType: "video/mp4", size: Int64(size), sha256: sha256)
        guard case .target(let target) = try await storage.presign([file], in: context)["f1"] else {
            throw S3IntegrationFailure("the storage refused the file")
        }
        let bytesStaged: StagedBytes = inPlace ? .source(MemorySource(bytes)) : .copy(path: path)
        let staged = StagedFile(bytes: bytesStaged, size: Int64(size), sha256: sha256, mimeType: "video/mp4")
        return Setup(
            fixture: fixture, storage: storage, transport: transport, bytes: bytes,
            transfer: UploadTransfer(target: target, staged: staged, mimeType: "video/mp4"),
            key: fixture.presigner.objectKey(batchId: "trip-42", fileId: "f1", name: "movie.mp4"))
    }

    /// Uploads and returns every progress report.
    static func upload(_ setup: Setup) async throws -> [ProgressReport] {
        let reports = Locked<[ProgressReport]>([])
        try await setup.storage.upload(setup.transfer) { sent, total in
            reports.update { $0.append(ProgressReport(sent: sent, total: total)) }
        }
        return reports.value
    }

    static func stored(_ setup: Setup) async throws -> S3Curl.Response {
        try await setup.fixture.send(setup.fixture.presigner.presignedGet(key: setup.key))
    }

    /// Never backwards (a report may repeat the last: the upload waited), ending at the size.
    static func isMonotonic(_ reports: [ProgressReport], endingAt size: Int) -> Bool {
        zip(reports, reports.dropFirst()).allSatisfy { $0.sent <= $1.sent } && reports.last?.sent == Int64(size)
            && reports.allSatisfy { $0.total == Int64(size) }
    }

    @Test func aFileAboveTheThresholdGoesUpInConcurrentPartsAndReadsBackByteForByte() async throws {
        let size = 11 * Self.mebibyte
        let setup = try await Self.setUp(size: size, partsTogether: 3)
        defer { setup.fixture.cleanUp() }

        let reports = try await Self.upload(setup)

        #expect(setup.transport.calls.count == 5)
        #expect(setup.transport.calls.first?.operation == .create)
        #expect(setup.transport.calls.last?.operation == .complete)
        #expect((1...3).allSatisfy { setup.transport.count(.part($0)) == 1 })
        #expect(setup.transport.mostPartsInFlight == 3)
        #expect(Self.isMonotonic(reports, endingAt: size))
        let stored = try await Self.stored(setup)
        #expect(stored.status == 200)
        #expect(stored.body == setup.bytes)
        #expect(stored.header("content-type") == "video/mp4")
        #expect(try await S3MotoTransferTests.openUploads(setup.fixture).isEmpty)

        // Each part carried its own SHA-256, and storage's composite checksum is the digest of the part digests.
        let partDigests = (1...3).map { number -> [UInt8] in
            let range = (number - 1) * 5 * Self.mebibyte..<min(number * 5 * Self.mebibyte, size)
            return SigV4Digest.sha256(setup.bytes.subdata(in: range))
        }
        for (index, digest) in partDigests.enumerated() {
            let part = setup.transport.records.first { $0.call.operation == .part(index + 1) }
            #expect(part?.header(S3Checksum.sha256Header) == S3Checksum.base64(sha256Digest: digest))
        }
        let composite = S3Checksum.base64(sha256Digest: SigV4Digest.sha256(Data(partDigests.joined()))) + "-3"
        let checked = try await setup.fixture.send(
            setup.fixture.presigner.presigned(
                method: "GET", key: setup.key, headers: [HTTPHeader("x-amz-checksum-mode", "ENABLED")]))
        #expect(checked.header("x-amz-checksum-sha256") == composite)
    }

    /// CompleteMultipartUpload sends no bytes, and storage may take a while to answer it: the upload repeats its
    /// progress meanwhile (a third of the stall timeout apart), so the engine's stall clock does not run out on it.
    @Test func anUploadWaitingForStorageToAssembleItsPartsRepeatsItsProgress() async throws {
        let size = 6 * Self.mebibyte
        var configuration = Self.configuration()
        // Long enough that moto, slow under load, never stalls a part; reports then come every 500 ms.
        configuration.stallTimeout = .milliseconds(1500)
        let setup = try await Self.setUp(size: size, configuration: configuration) { call in
            call.operation == .complete ? .delay(.milliseconds(2500)) : nil
        }
        defer { setup.fixture.cleanUp() }

        let reports = try await Self.upload(setup)

        let waiting = reports.drop { $0.sent < Int64(size) }
        #expect(waiting.count >= 4, "one as the last part ends, then one every 500 ms of the 2.5 s wait: \(waiting.count)")
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.sent <= $1.sent }, "never backwards")
        #expect(try await Self.stored(setup).body == setup.bytes)
    }

    /// A part refused with `Retry-After` waits before its next attempt with nothing in flight: the wait repeats the
    /// progress, so a `Retry-After` longer than the engine's stall timeout is not taken for a stall (DESIGN §4).
    @Test func aPartWaitingToBeTriedAgainRepeatsItsProgress() async throws {
        var configuration = Self.configuration(partConcurrency: 1)
        configuration.partRetry = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .seconds(3))
        // Below the 2 s `Retry-After`, and above what a 5 MiB part to the loopback store can go without progress while
        // the whole suite shares two cores: at 900 ms, the second attempt was once cut as stalled and a third made.
        configuration.stallTimeout = .milliseconds(1500)
        let slowDown = HTTPResponse(status: 503, headers: [HTTPHeader("Retry-After", "2")],
                                    body: ScriptedStorageTransport.error(503, "SlowDown").body)
        let setup = try await Self.setUp(size: 6 * Self.mebibyte, configuration: configuration) { call in
            call == .init(operation: .part(1), attempt: 1) ? .answer(slowDown) : nil
        }
        defer { setup.fixture.cleanUp() }

        let reports = try await Self.upload(setup)

        // Nothing is sent before part 1's second attempt: every report until then is a wait's (one every 500 ms of the
        // 2 s wait on an idle host; how many under load depends on how late sleeps wake, S3MultipartProgressTests
        // has the rule).
        let waiting = reports.prefix { $0.sent == 0 }
        #expect(waiting.count >= 2, "the wait repeated the progress: \(waiting.count)")
        #expect(setup.transport.count(.part(1)) == 2, "calls: \(setup.transport.calls)")
        #expect(Self.isMonotonic(reports, endingAt: 6 * Self.mebibyte))
        #expect(try await Self.stored(setup).body == setup.bytes)
    }

    @Test(arguments: [3 * mebibyte, 11 * mebibyte])
    func aSourceReadInPlaceGoesUpWithItsChecksumsAndReadsBackByteForByte(size: Int) async throws {
        let setup = try await Self.setUp(size: size, partsTogether: 3, inPlace: true)
        defer { setup.fixture.cleanUp() }

        let reports = try await Self.upload(setup)

        #expect(Self.isMonotonic(reports, endingAt: size))
        let stored = try await Self.stored(setup)
        #expect(stored.status == 200)
        #expect(stored.body == setup.bytes)
        let checked = try await setup.fixture.send(
            setup.fixture.presigner.presigned(
                method: "GET", key: setup.key, headers: [HTTPHeader("x-amz-checksum-mode", "ENABLED")]))
        #expect(checked.header("x-amz-checksum-sha256") != nil, "storage verified the bytes against their digest")
    }

    @Test func partsInFlightNeverExceedTheConfiguredConcurrency() async throws {
        let size = 16 * Self.mebibyte
        let setup = try await Self.setUp(
            size: size, configuration: Self.configuration(partConcurrency: 2), partsTogether: 2)
        defer { setup.fixture.cleanUp() }

        _ = try await Self.upload(setup)

        #expect(setup.transport.count(.create) == 1)
        #expect((1...4).allSatisfy { setup.transport.count(.part($0)) == 1 })
        #expect(setup.transport.mostPartsInFlight == 2)
        #expect(try await Self.stored(setup).body == setup.bytes)
    }

    /// A file holding a slot of the worker's keeps one part moving on it while the HTTP client's cap is all taken
    /// (by other files' parallel parts): its parts beyond that one wait, it does not — waiting would count against
    /// its stall timeout with no byte able to move.
    @Test func aFileOnItsOwnSlotKeepsAPartMovingWhileTheClientsCapIsTaken() async throws {
        let size = 16 * Self.mebibyte
        var setup = try await Self.setUp(size: size, configuration: Self.configuration(partConcurrency: 2))
        defer { setup.fixture.cleanUp() }
        setup.transfer.holdsSlot = true
        let client = setup.transport.client
        for _ in 0..<client.slots.capacity { try await client.slots.acquire() }
        let uploading = Task { [setup] in try await Self.upload(setup) }

        // Four parts in two lanes: the slot's lane takes parts 1, 3 and 4 while part 2 waits for the cap.
        #expect(await eventually(within: .seconds(60)) { setup.transport.count(.part(4)) == 1 })
        #expect(client.waitingTransfers == 1, "the second lane's part waits for the cap")
        for _ in 0..<client.slots.capacity { client.slots.release() }
        let reports = try await uploading.value
        #expect(Self.isMonotonic(reports, endingAt: size))
        #expect(try await Self.stored(setup).body == setup.bytes)
    }

    @Test func aFailedPartIsRetriedAloneAndProgressNeverGoesBackwards() async throws {
        let size = 11 * Self.mebibyte
        // Part 2's first attempt reaches storage in full, then its answer is replaced by a 500.
        let setup = try await Self.setUp(size: size) { call in
            call == .init(operation: .part(2), attempt: 1)
                ? .answerAfterSending(ScriptedStorageTransport.error(500, "InternalError")) : nil
        }
        defer { setup.fixture.cleanUp() }

        let reports = try await Self.upload(setup)

        #expect(setup.transport.count(.part(1)) == 1)
        #expect(setup.transport.count(.part(2)) == 2)
        #expect(setup.transport.count(.part(3)) == 1)
        #expect(setup.transport.count(.create) == 1)
        #expect(setup.transport.count(.complete) == 1)
        #expect(Self.isMonotonic(reports, endingAt: size))
        #expect(try await Self.stored(setup).body == setup.bytes)
    }

    @Test func aPartThatKeepsFailingAbortsTheUploadAndFailsRetryably() async throws {
        let setup = try await Self.setUp(size: 11 * Self.mebibyte) { call in
            call.operation == .part(3)
                ? .fail(HTTPTransportError(.transport, "Connection reset by peer", retryable: true)) : nil
        }
        defer { setup.fixture.cleanUp() }

        let error = await #expect(throws: UploadError.self) { _ = try await Self.upload(setup) }

        #expect(error?.code == .s3UploadFailed)
        #expect(error?.isRetryable == true)
        #expect(setup.transport.count(.part(3)) == 3)
        #expect(setup.transport.count(.complete) == 0)
        #expect(setup.transport.count(.abort) == 1)
        #expect(try await S3MotoTransferTests.openUploads(setup.fixture).isEmpty)
        #expect(try await Self.stored(setup).status == 404)
    }

    @Test func aPartRefusedForGoodIsNotRetriedAndTheFileIsRejected() async throws {
        let setup = try await Self.setUp(size: 11 * Self.mebibyte) { call in
            call.operation == .part(1) ? .answer(ScriptedStorageTransport.error(403, "SignatureDoesNotMatch")) : nil
        }
        defer { setup.fixture.cleanUp() }

        let error = await #expect(throws: UploadError.self) { _ = try await Self.upload(setup) }

        #expect(error?.code == .s3UploadFailed)
        #expect(error?.isRetryable == false)
        #expect(error?.message.contains("SignatureDoesNotMatch") == true)
        #expect(setup.transport.count(.part(1)) == 1)
        #expect(setup.transport.count(.abort) == 1)
        #expect(try await S3MotoTransferTests.openUploads(setup.fixture).isEmpty)
    }

    @Test func aCompletionAnsweredWithAnErrorInsideA200FailsAndAborts() async throws {
        let setup = try await Self.setUp(size: 11 * Self.mebibyte) { call in
            call.operation == .complete ? .answer(ScriptedStorageTransport.error(200, "InternalError")) : nil
        }
        defer { setup.fixture.cleanUp() }

        let error = await #expect(throws: UploadError.self) { _ = try await Self.upload(setup) }

        #expect(error?.code == .s3UploadFailed)
        #expect(error?.isRetryable == true)
        #expect(error?.message.contains("InternalError") == true)
        #expect(setup.transport.count(.complete) == 3)
        #expect(setup.transport.count(.abort) == 1)
        #expect(try await S3MotoTransferTests.openUploads(setup.fixture).isEmpty)
        #expect(try await Self.stored(setup).status == 404)
    }

    @Test func cancellingAMultipartUploadAbortsIt() async throws {
        let setup = try await Self.setUp(size: 11 * Self.mebibyte) { call in
            call.operation == .part(2) ? .hang : nil
        }
        defer { setup.fixture.cleanUp() }

        let upload = Task { try await Self.upload(setup) }
        await waitFor("a call to hang") { await setup.transport.waitUntilHanging() }
        upload.cancel()

        await #expect(throws: CancellationError.self) { _ = try await waitFor("upload to end") { await upload.result }?.get() }
        #expect(setup.transport.count(.abort) == 1)
        #expect(setup.transport.count(.complete) == 0)
        #expect(try await S3MotoTransferTests.openUploads(setup.fixture).isEmpty)
    }

    /// SSE-KMS with a key made in moto's KMS, and SSE-S3: in one `PUT` (1 MiB) and in parts (11 MiB).
    @Test(arguments: [(mebibyte, true), (11 * mebibyte, true), (mebibyte, false), (11 * mebibyte, false)])
    func encryptionAtRestIsSignedIntoEveryUploadAndStorageKeepsTheObjectSo(size: Int, kms: Bool) async throws {
        let scratch = FileManager.default.temporaryDirectory
        let keyId = kms ? try await S3MotoKMS.createKey(on: try S3MotoServer.require(), in: scratch) : nil
        let encryption = S3ServerSideEncryption(kms ? .kms : .aes256, kmsKeyId: keyId)
        let setup = try await Self.setUp(size: size, encryption: encryption)
        defer { setup.fixture.cleanUp() }

        _ = try await Self.upload(setup)

        #expect(setup.transfer.target.serverSideEncryption == encryption.algorithm.rawValue)
        if size > Self.mebibyte {
            let create = try #require(setup.transport.records.first { $0.call.operation == .create })
            #expect(create.header("x-amz-server-side-encryption") == encryption.algorithm.rawValue)
            #expect(create.header("x-amz-server-side-encryption-aws-kms-key-id") == keyId)
        } else {
            #expect(setup.transfer.target.uploadURL.contains("x-amz-server-side-encryption"))
        }
        let stored = try await Self.stored(setup)
        #expect(stored.status == 200)
        #expect(stored.header("x-amz-server-side-encryption") == encryption.algorithm.rawValue)
        #expect(stored.header("x-amz-server-side-encryption-aws-kms-key-id") == keyId)
        #expect(stored.body == setup.bytes)
    }

    /// A clock ten minutes further on for each request the transport has seen: a URL signed before a request started
    /// is dated before it.
    struct RequestCountClock: EngineClock {
        let transport: ScriptedStorageTransport
        func now() -> Date { Date(timeIntervalSince1970: 1_800_000_000 + 600 * Double(transport.calls.count)) }
        func sleep(until deadline: Date) async throws {}
    }

    /// Expiry-aware (DESIGN §12): every part is presigned as it starts, so no part goes up on a URL signed at the
    /// upload's beginning: part N's URL is signed after part N−1's request (one part at a time), so its date follows.
    @Test func eachPartIsSignedAsItStarts() async throws {
        let base = try await Self.setUp(size: 16 * Self.mebibyte, configuration: Self.configuration(partConcurrency: 1))
        defer { base.fixture.cleanUp() }
        let presigner = try S3Presigner(configuration: base.fixture.presigner.configuration, clock: RequestCountClock(transport: base.transport))
        let storage = S3Storage(presigner: presigner, transport: base.transport, singlePut: base.storage.singlePut,
                                configuration: Self.configuration(partConcurrency: 1), clock: SystemClock())

        try await storage.upload(base.transfer) { _, _ in }

        let dates = base.transport.records.filter { if case .part = $0.call.operation { true } else { false } }.compactMap { record in
            URLComponents(string: record.url)?.queryItems?.first { $0.name == "X-Amz-Date" }?.value
        }
        let expected = (1...4).map { SigV4Timestamp(Date(timeIntervalSince1970: 1_800_000_000 + 600 * Double($0))).amzDate }
        #expect(dates == expected, "part N signed once N requests (the creation and N−1 parts) had been made")
        #expect(try await Self.stored(base).body == base.bytes)
    }

    @Test func aFileAtTheThresholdGoesUpInOneSignedPut() async throws {
        let size = 5 * Self.mebibyte
        let setup = try await Self.setUp(size: size)
        defer { setup.fixture.cleanUp() }

        let reports = try await Self.upload(setup)

        #expect(setup.transport.calls.isEmpty)
        #expect(Self.isMonotonic(reports, endingAt: size))
        let checked = try await setup.fixture.send(
            setup.fixture.presigner.presigned(
                method: "GET", key: setup.key, headers: [HTTPHeader("x-amz-checksum-mode", "ENABLED")]))
        #expect(checked.body == setup.bytes)
        #expect(checked.header("x-amz-checksum-sha256") == S3Checksum.base64(sha256Hex: setup.transfer.staged.sha256))
    }

    @Test func removingAnUploadedFileDeletesItsObject() async throws {
        let setup = try await Self.setUp(size: 1000)
        defer { setup.fixture.cleanUp() }
        _ = try await Self.upload(setup)
        #expect(try await Self.stored(setup).status == 200)
        let attachment = Attachment(
            fileId: "f1", name: "movie.mp4", url: setup.transfer.target.fileURL, mimeType: "video/mp4", size: 1000,
            sha256: setup.transfer.staged.sha256)

        try await setup.storage.deleteObject(attachment, target: setup.transfer.target)
        try await setup.storage.deleteObject(attachment, target: setup.transfer.target)

        #expect(setup.transport.count(.delete) == 2)
        #expect(try await Self.stored(setup).status == 404)
    }

    @Test func throughTheEngineALargeFileGoesUpInPartsAndRemovingItDeletesItsObject() async throws {
        let fixture = try await S3IntegrationFixture.make()
        defer { fixture.cleanUp() }
        let storage = S3Storage(presigner: fixture.presigner, client: try HTTPClient(), configuration: Self.configuration())
        var engine = EngineConfiguration()
        engine.limits.inlineMax = Int64(16 * Self.mebibyte)
        let runner = BatchRunner(
            batch: UploadBatch(context: Self.context, configuration: engine), presigner: storage, uploader: storage,
            stager: DataStager(directory: fixture.directory))
        defer { runner.abandon() }
        let (events, sink) = AsyncStream<UploadEvent>.makeStream()
        runner.setGlobalObserver { sink.yield($0) }
        let bytes = S3IntegrationFixture.randomBytes(11 * Self.mebibyte)

        runner.upload([FileItem(fileId: "f1", name: "movie.mp4", mimeType: "video/mp4", source: .data(bytes))], requestId: "r1")
        let seen = await waitFor("the upload to complete", timeout: .seconds(120)) { () -> [UploadEvent] in
            var seen: [UploadEvent] = []
            for await event in events {
                seen.append(event)
                if event.isCompletion { break }
            }
            return seen
        } ?? []

        let attachment = try #require(
            seen.lazy.compactMap { if case .uploaded(let attachment) = $0.kind { attachment } else { nil } }.first)
        #expect(attachment.sha256 == SHA256Hasher.hex(of: bytes))
        let key = fixture.presigner.objectKey(batchId: "trip-42", fileId: "f1", name: "movie.mp4")
        #expect(attachment.url == fixture.presigner.fileURL(key: key))
        let stored = try await fixture.send(fixture.presigner.presignedGet(key: key))
        #expect(stored.body == bytes)
        #expect(stored.header("etag")?.hasSuffix("-3\"") == true)

        #expect(runner.remove(fileId: "f1") == .applied)

        var status = 200
        let deadline = ContinuousClock.now + .seconds(15)
        while status != 404, ContinuousClock.now < deadline {
            status = try await fixture.send(fixture.presigner.presignedGet(key: key)).status
        }
        #expect(status == 404)
    }
}
