import Foundation
import Testing
import UploadEngine

@testable import HTTPTransport
@testable import S3
import TestSupport
import WireFormat

/// Each classification from a real fault: nginx locations, raw sockets, an expired target.
@Suite(.nginx, .timeLimit(.minutes(1))) struct CurlUploaderTests {
    let nginx = NginxServer.current!
    /// Put in every presigned URL here; it must never surface in an error.
    static let secret = "X-Amz-Signature=0123456789abcdef-secret"

    private func stage(_ scratch: TemporaryDirectory, size: Int = 64 << 10) throws -> StagedFile {
        let path = try scratch.patternFile("staged-\(UUID()).bin", size: size)
        return StagedFile(path: path, size: Int64(size), sha256: "")
    }

    private func attempt(
        _ path: String, uploader: CurlUploader? = nil, expiresAt: Date? = nil, mimeType: String = "image/jpeg"
    ) async throws -> UploadError {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let client = try HTTPClient()
        let uploader = uploader ?? CurlUploader(client: client)
        let target = UploadTarget(
            uploadURL: nginx.url(path) + "?" + Self.secret, fileURL: "https://cdn.invalid/x", expiresAt: expiresAt)
        let transfer = UploadTransfer(target: target, staged: try stage(scratch), mimeType: mimeType)
        let error = try await #require(throws: UploadError.self) {
            try await uploader.upload(transfer) { _, _ in }
        }
        #expect(!error.message.contains(Self.secret))
        return error
    }

    @Test func aStagedFileIsStoredWithTheTargetHeadersAndTheMimeType() async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let staged = try stage(scratch, size: 3 << 20)
        let uploader = CurlUploader(client: try HTTPClient())
        let target = UploadTarget(
            uploadURL: nginx.url("/checked/u/photo.jpg?\(Self.secret)"),
            headers: [HTTPHeader("X-Attache-Check", "yes")], fileURL: "https://cdn.invalid/photo.jpg",
            expiresAt: Date().addingTimeInterval(600))
        let last = Locked(ProgressReport(sent: 0, total: nil))

        try await uploader.upload(UploadTransfer(target: target, staged: staged, mimeType: "image/jpeg")) { sent, total in
            last.update { $0 = ProgressReport(sent: sent, total: total) }
        }

        let stored = try Data(contentsOf: URL(fileURLWithPath: "\(nginx.root)/checked/u/photo.jpg"))
        #expect(stored == (try Data(contentsOf: URL(fileURLWithPath: try #require(staged.path)))))
        #expect(last.value == ProgressReport(sent: 3 << 20, total: 3 << 20))
    }

    @Test(arguments: [16 << 10, 3 << 20])
    func anOpenSourceIsStoredFromItsReadsWithoutAFile(size: Int) async throws {
        let source = MemorySource(count: size)
        let staged = StagedFile(bytes: .source(source), size: source.size, sha256: "")
        let uploader = CurlUploader(client: try HTTPClient())
        let target = UploadTarget(
            uploadURL: nginx.url("/checked/u/source-\(size).bin?\(Self.secret)"),
            headers: [HTTPHeader("X-Attache-Check", "yes")], fileURL: "https://cdn.invalid/source.bin")
        let last = Locked(ProgressReport(sent: 0, total: nil))

        try await uploader.upload(UploadTransfer(target: target, staged: staged, mimeType: "image/jpeg")) { sent, total in
            last.update { $0 = ProgressReport(sent: sent, total: total) }
        }

        let stored = try Data(contentsOf: URL(fileURLWithPath: "\(nginx.root)/checked/u/source-\(size).bin"))
        #expect(stored == source.bytes)
        #expect(last.value == ProgressReport(sent: Int64(size), total: Int64(size)))
        #expect(source.reads > 0)
    }

    @Test func a503IsARetryableUploadFailure() async throws {
        let error = try await attempt("/fault/503")
        #expect(error.code == .s3UploadFailed)
        #expect(error.isRetryable)
        #expect(error.message.contains("503"))
    }

    @Test func slowDownIsRetryableAndCarriesRetryAfter() async throws {
        let error = try await attempt("/fault/slow-down")
        #expect(error.code == .s3UploadFailed)
        #expect(error.isRetryable)
        #expect(error.message.contains("SlowDown"))
        #expect(error.retryAfter == .seconds(3))
    }

    @Test func anExpiredURLAnswerIsPresignedURLExpired() async throws {
        let error = try await attempt("/fault/expired")
        #expect(error.code == .presignedURLExpired)
        #expect(error.isRetryable)
    }

    @Test func aSignatureMismatchIsNotRetried() async throws {
        let error = try await attempt("/fault/signature")
        #expect(error.code == .s3UploadFailed)
        #expect(!error.isRetryable)
        #expect(error.message.contains("403 SignatureDoesNotMatch"))
    }

    @Test func anInvalidArgumentCarriesTheStoreCodeAndIsNotRetried() async throws {
        let error = try await attempt("/fault/invalid-argument")
        #expect(error.code == .s3UploadFailed)
        #expect(!error.isRetryable)
        #expect(error.message.contains("400 InvalidArgument: Unsupported header"))
    }

    @Test func aStoreRequestTimeoutIsRetriedDespiteItsStatus400() async throws {
        let error = try await attempt("/fault/request-timeout")
        #expect(error.code == .s3UploadFailed)
        #expect(error.isRetryable)
        #expect(error.message.contains("RequestTimeout"))
    }

    @Test func tooManyRequestsIsRetryableWithRetryAfterSeconds() async throws {
        let error = try await attempt("/fault/429")
        #expect(error.code == .s3UploadFailed)
        #expect(error.isRetryable)
        #expect(error.retryAfter == .seconds(7))
    }

    @Test func retryAfterAsAnHTTPDateIsMeasuredFromTheClock() async throws {
        let clock = ManualClock(start: try Date("2026-11-01T10:00:00Z", strategy: .iso8601), sleeping: .jumpsToDeadline)
        let uploader = CurlUploader(client: try HTTPClient(), clock: clock)

        let error = try await attempt("/fault/429-date", uploader: uploader)

        #expect(error.retryAfter == .seconds(30))
    }

    @Test func aTargetThatExpiredIsRefusedWithoutSendingAnything() async throws {
        let clock = ManualClock(sleeping: .jumpsToDeadline)
        let uploader = CurlUploader(client: try HTTPClient(), clock: clock)
        let name = "expired-\(UUID()).bin"

        let error = try await attempt("/dav/\(name)", uploader: uploader, expiresAt: clock.now())

        #expect(error.code == .presignedURLExpired)
        #expect(error.isRetryable)
        #expect(!FileManager.default.fileExists(atPath: "\(nginx.root)/dav/\(name)"))
    }

    @Test func aTargetThatExpiresWhileWaitingForTheCapIsRefusedWhenItsTurnComes() async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let clock = ManualClock(sleeping: .jumpsToDeadline)
        let client = try HTTPClient(configuration: .init(maxConcurrentTransfers: 1))
        let uploader = CurlUploader(client: client, clock: clock)
        let name = "late-\(UUID()).bin"
        let target = UploadTarget(
            uploadURL: nginx.url("/dav/\(name)?\(Self.secret)"), fileURL: "https://cdn.invalid/late",
            expiresAt: clock.now() + .seconds(60))
        let transfer = UploadTransfer(target: target, staged: try stage(scratch), mimeType: "application/pdf")
        try await client.slots.acquire()

        let upload = Task { try await uploader.upload(transfer) { _, _ in } }
        await yieldUntil { client.waitingTransfers == 1 }
        clock.advance(by: .seconds(61))
        client.slots.release()

        let error = await #expect(throws: UploadError.self) { try await waitFor("upload to end") { await upload.result }?.get() }
        #expect(error?.code == .presignedURLExpired)
        #expect(!FileManager.default.fileExists(atPath: "\(nginx.root)/dav/\(name)"))
    }

    @Test(arguments: ["ftp://127.0.0.1/x?sig=1", "http://?sig=1", "://broken", "https//missing-colon/x"])
    func aMalformedUploadURLIsInvalidURLAndRetryable(url: String) async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let uploader = CurlUploader(client: try HTTPClient())
        let transfer = UploadTransfer(
            target: UploadTarget(uploadURL: url, fileURL: "https://cdn.invalid/x"), staged: try stage(scratch),
            mimeType: "text/plain")

        let error = await #expect(throws: UploadError.self) { try await uploader.upload(transfer) { _, _ in } }

        #expect(error?.code == .invalidURL)
        #expect(error?.isRetryable == true)
    }
}
