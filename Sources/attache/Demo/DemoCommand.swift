import DevServices
import Foundation
import HTTPTransport
import UploadEngine
import Worker

/// `attache demo`: one realistic batch through staging, presigning, uploading and message sending, against real
/// HTTP services on 127.0.0.1, with everything shown as it happens.
enum DemoCommand {
    static let batchId = "trip-42"

    static func run() async -> Int32 {
        do {
            return try await runScenario()
        } catch {
            FileHandle.standardError.write(Data("attache demo: \(error)\n".utf8))
            return 1
        }
    }

    private static func runScenario() async throws -> Int32 {
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("attache-demo-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: workspace) }
        let sourceRoot = workspace.appendingPathComponent("sources")
        var configuration = EngineConfiguration()
        configuration.limits.fileSizeMax = 16 * 1024 * 1024
        configuration.retry = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(300), maxDelay: .seconds(5))
        let files = DemoFiles.batch(sizeLimit: configuration.limits.fileSizeMax)
        for file in files {
            guard let bytes = file.onDisk, case .path(let relative) = file.item.source else { continue }
            let url = sourceRoot.appendingPathComponent(relative)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try bytes.write(to: url)
        }

        let services = try EmbeddedServices(configuration: .init(messages: .init(apiKey: "demo-api-key")))
        defer { services.stop() }
        // The voice note's first upload meets a 503; the video trickles in so its progress is visible.
        services.store.faults.inject(.serverError(status: 503, retryAfter: nil), target: .fileId("voice"), times: 1)
        services.store.faults.inject(.trickleRequestBody(bytesPerSecond: 3 * 1024 * 1024), target: .fileId("clip"))

        print("""
        attache demo — one batch through staging, presigning, uploading and sending, on services at 127.0.0.1
          object store  \(services.storeURL)
          presign       \(services.presignURL)
          message API   \(services.messagesURL)
          (Kafka is not part of this run: the job is handed to the worker's batch registry directly.)

        batch \(batchId) for user cometchat-uid-1: \(files.count) files, concurrency 3, size limit \(DemoConsole.kib(configuration.limits.fileSizeMax))

        """)

        let client = try HTTPClient()
        let staging = SourceStaging(area: try StagingArea(directory: workspace.appendingPathComponent("staging").path),
                                    sourceRoot: sourceRoot.path, client: client)
        let presigner = PresignEndpointClient(url: services.presignURL, client: client)
        let uploader = CurlUploader(client: client)
        let console = DemoConsole()
        let registry = BatchRegistry(configuration: configuration, dependencies: .init(
            makeRunner: { BatchRunner(batch: $0, presigner: presigner, uploader: uploader, stager: staging) },
            publisher: console,
            sender: HTTPMessageSender(url: services.messagesURL, apiKey: "demo-api-key", client: client)))

        let job = UploadJob(requestId: "req-7f3", batchId: batchId, receiver: Receiver(id: "cometchat-uid-1", type: .user),
                            sender: "cometchat-uid-7", parentMessageId: nil, concurrency: 3, files: files.map(\.item),
                            message: MessageOptions(send: .auto, caption: "Trip photos", metadata: ["trip": 42]))
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            registry.handle(.upload(job)) { finished.resume() }
        }

        printMessages(services.messages.messages)
        let result = console.recorded.compactMap { event -> UploadResult? in
            if case .upload(let upload) = event, case .completed(let result) = upload.kind { return result }
            return nil
        }.last
        try printResult(result)
        return verdict(result, messages: services.messages.messages, events: console.recorded)
    }

    private static func printMessages(_ messages: [CapturedRequest]) {
        print("\nmessages received by the message API, in order:")
        for request in messages {
            guard let message = request.message else { continue }
            let names = message.data.attachments.map(\.name).joined(separator: ", ")
            let caption = message.data.text.map { " — \"\($0)\"" } ?? ""
            print("  \(message.type.padding(toLength: 6, withPad: " ", startingAt: 0)) \(message.data.attachments.count) attachment(s): \(names)\(caption)")
        }
    }

    private static func printResult(_ result: UploadResult?) throws {
        guard let result else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print("\nfinal UploadResult:")
        print(String(decoding: try encoder.encode(result), as: UTF8.self))
    }

    /// The demo checks its own story: five uploads (one after a retry), one rejection, four messages.
    private static func verdict(_ result: UploadResult?, messages: [CapturedRequest], events: [WorkerEvent]) -> Int32 {
        let retried = events.contains { event in
            if case .upload(let upload) = event, upload.fileId == "voice", case .failed(_, 1, true) = upload.kind { return true }
            return false
        }
        guard let result, result.successful.count == 5, result.rejected.map(\.fileId) == ["raw-footage"], result.failed.isEmpty,
              retried, messages.compactMap(\.message).map(\.type) == ["image", "video", "audio", "file"] else {
            print("\nthe demo did not go as expected")
            return 1
        }
        print("\nall files accounted for: 5 uploaded (voice after one retry), 1 rejected, 4 messages sent.")
        return 0
    }
}
