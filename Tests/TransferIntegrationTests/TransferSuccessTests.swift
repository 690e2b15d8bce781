import DevServices
import Foundation
import S3
import TestSupport
import Testing
import UploadEngine

/// Whole batches through the real engine, staging, presign client and uploader against the embedded services.
@Suite(.timeLimit(.minutes(1))) struct TransferSuccessTests {
    @Test func aBatchStoresBytesWhoseDigestIsTheAttachmentsAndProgressEndsAtTheFileSize() async throws {
        var options = TransferHarness.Options()
        options.concurrency = 2
        let harness = try TransferHarness(options)
        defer { harness.stop() }
        let inline = TestBytes.make(700_000, seed: 1)
        let fetched = TestBytes.make(1_300_000, seed: 2)
        let sourceURL = try await harness.putSource(fetched, key: "sources/photo.jpg")

        let result = try #require(
            await harness.run([
                FileItem(fileId: "f1", name: "notes.pdf", mimeType: "application/pdf", source: .data(inline)),
                FileItem(fileId: "f2", name: "photo.jpg", mimeType: "image/jpeg", source: .url(sourceURL)),
            ]))

        #expect(result.successful.map(\.fileId) == ["f1", "f2"])
        #expect(result.failed.isEmpty && result.rejected.isEmpty)
        for (fileId, name, bytes) in [("f1", "notes.pdf", inline), ("f2", "photo.jpg", fetched)] {
            let attachment = try #require(harness.attachment(of: fileId))
            let key = harness.key(fileId: fileId, name: name)
            let stored = try #require(try harness.services.store.contents(ofKey: key))
            #expect(stored == bytes)
            #expect(SHA256Hasher.hex(of: stored) == attachment.sha256)
            #expect(harness.services.store.object(forKey: key)?.sha256 == attachment.sha256)
            #expect(attachment.url == (try harness.services.store.url(forKey: key)))
            #expect(attachment.size == Int64(bytes.count))

            let progress = harness.progress(of: fileId)
            #expect(progress.last == .init(loaded: Int64(bytes.count), total: Int64(bytes.count), percent: 100))
            #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.loaded < $1.loaded })
        }
        #expect(await eventually { harness.stagedFiles.isEmpty })
    }

    @Test func oneStoreServerErrorIsRetriedAutomaticallyAndTheFileIsUploaded() async throws {
        var options = TransferHarness.Options()
        options.maxAttempts = 3
        let harness = try TransferHarness(options)
        defer { harness.stop() }
        harness.services.store.faults.inject(.serverError(status: 500), target: .fileId("f1"), times: 1)
        let bytes = TestBytes.make(200_000)

        let result = try #require(
            await harness.run([FileItem(fileId: "f1", name: "a.bin", mimeType: "application/octet-stream", source: .data(bytes))]))

        let failures = harness.failures(of: "f1")
        #expect(failures.count == 1)
        #expect(failures.first?.error.code == .s3UploadFailed)
        #expect(failures.first?.attempt == 1)
        #expect(failures.first?.willRetry == true)
        #expect(result.successful.map(\.fileId) == ["f1"])
        #expect(harness.services.store.faults.firingCount(.serverError) == 1)
        #expect(try harness.services.store.contents(ofKey: harness.key(fileId: "f1", name: "a.bin")) == bytes)
        #expect(harness.completions.count == 1)
    }
}
