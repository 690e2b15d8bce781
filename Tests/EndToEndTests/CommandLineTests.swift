import DevServices
import Foundation
import TestSupport
import Testing
import WireFormat

/// The operator commands (`config`, `submit`, `control`, `batch`) as the real binary, against `attache dev-broker`
/// and a worker of their own on topics of their own.
@Suite(.serialized, .timeLimit(.minutes(5))) struct CommandLineTests {
    static let jobsTopic = "cli.jobs"
    static let eventsTopic = "cli.events"

    /// The Kafka settings every command gets, as a worker reads them.
    static func kafkaEnvironment(_ environment: EndToEndEnvironment) -> [String: String] {
        ["ATTACHE_KAFKA_BROKERS": environment.brokers, "ATTACHE_KAFKA_JOBS_TOPIC": jobsTopic,
         "ATTACHE_KAFKA_EVENTS_TOPIC": eventsTopic, "ATTACHE_KAFKA_BATCHES_TOPIC": EndToEndEnvironment.changelog(of: jobsTopic),
         "ATTACHE_KAFKA_DLQ_TOPIC": "\(jobsTopic).dlq"]
    }

    static let worker = Task { () throws -> ChildProcess in
        let environment = try await EndToEndEnvironment.shared.value
        let worker = try environment.startWorker(name: "worker-cli", group: "e2e-cli", jobsTopic: jobsTopic, eventsTopic: eventsTopic,
                                                 extra: ["ATTACHE_KAFKA_DLQ_TOPIC": "\(jobsTopic).dlq"])
        _ = try await eventually("the worker's first assignment", timeout: .seconds(30)) {
            worker.standardError.contains("partitions assigned") ? true : nil
        }
        return worker
    }

    /// Runs `attache ARGUMENTS` to its end: exit status, standard output, standard error.
    static func attache(_ arguments: [String], environment: [String: String] = [:],
                        timeout: Duration = .seconds(60)) async throws -> (status: Int32, output: String, error: String) {
        let shared = try await EndToEndEnvironment.shared.value
        let name = "cli-\(arguments.first ?? "none")-\(UUID().uuidString.prefix(6))"
        let process = try ChildProcess(name: name, executable: EndToEndEnvironment.attacheBinary, arguments: arguments,
                                       environment: environment, directory: shared.workspace)
        guard let status = await process.waitForExit(timeout: timeout) else {
            throw EndToEndFailure("attache \(arguments.joined(separator: " ")) did not exit: \(process.standardError)")
        }
        return (status, process.standardOutput, process.standardError)
    }

    private func completed(_ environment: EndToEndEnvironment, _ batchId: String, _ type: String = "attache.batch.completed",
                           count: Int = 1) async throws -> [ReceivedEvent] {
        try await eventually("\(type) for \(batchId)", timeout: .seconds(60)) {
            let events = try await environment.events(of: batchId, topic: Self.eventsTopic)
            return events.filter { $0.type == type }.count >= count ? events : nil
        }
    }

    /// The shared environment once this suite's worker is ready, and the Kafka settings for the commands.
    private func setUp() async throws -> (EndToEndEnvironment, [String: String]) {
        let environment = try await EndToEndEnvironment.shared.value
        _ = try await Self.worker.value
        return (environment, Self.kafkaEnvironment(environment))
    }

    /// A JPEG of `size` bytes in the shared workspace.
    private func jpeg(_ environment: EndToEndEnvironment, _ name: String, size: Int, seed: Int) throws -> URL {
        let file = environment.workspace.appendingPathComponent(name)
        try Jobs.bytes(magic: Jobs.jpeg, size: size, seed: seed).write(to: file)
        return file
    }

    private func messages(_ environment: EndToEndEnvironment, batchId: String) -> [CapturedMessage] {
        environment.services.messages.messages.compactMap(\.message).filter { $0.data.metadata?["batchId"] == .string(batchId) }
    }

    @Test func versionHelpAndUnknownFlags() async throws {
        let version = try await Self.attache(["--version"])
        #expect(version.status == 0 && version.output.hasPrefix("attache 0."))
        for command in ["worker", "dev-broker", "demo", "config", "control", "submit", "batch", "dlq", "watch", "dashboard"] {
            let help = try await Self.attache([command, "--help"])
            #expect(help.status == 0 && help.output.contains("usage: attache \(command)"), "\(command)")
            let unknown = try await Self.attache([command, "--no-such-flag"])
            #expect(unknown.status == 2 && unknown.error.contains("unknown option '--no-such-flag'"), "\(command)")
        }
        let unknownCommand = try await Self.attache(["frobnicate"])
        #expect(unknownCommand.status == 2)
        let general = try await Self.attache([])
        #expect(general.status == 2)
        let help = try await Self.attache(["--help"])
        #expect(help.status == 0)
        for command in ["config", "submit", "control", "batch", "dlq", "watch", "dashboard"] {
            #expect(help.output.contains("\n  \(command) "), "the general usage lists \(command)")
        }
        let stray = try await Self.attache(["worker", "extra"])
        #expect(stray.status == 2 && stray.error.contains("unexpected argument 'extra'"))
    }

    @Test func dashboardRefusesBadAddressesTimesAndSettings() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let kafka = ["ATTACHE_KAFKA_BROKERS": environment.brokers]
        let listen = try await Self.attache(["dashboard", "--listen", "nowhere"], environment: kafka)
        #expect(listen.status == 2 && listen.error.contains("--listen must be host:port"))
        let since = try await Self.attache(["dashboard", "--since", "yesterday"], environment: kafka)
        #expect(since.status == 2 && since.error.contains("--since"))
        let bound = try await Self.attache(["dashboard"], environment: kafka.merging(["ATTACHE_DASHBOARD_MAX_BATCHES": "0"]) { $1 })
        #expect(bound.status == 2 && bound.error.contains("dashboard.maxBatches"))
        let stray = try await Self.attache(["dashboard", "extra"], environment: kafka)
        #expect(stray.status == 2 && stray.error.contains("unexpected argument 'extra'"))
        let emptyToken = try await Self.attache(["dashboard", "--token", ""], environment: kafka)
        #expect(emptyToken.status == 2 && emptyToken.error.contains("--token must not be empty"))
        let spacedToken = try await Self.attache(["dashboard", "--token", "two words"], environment: kafka)
        #expect(spacedToken.status == 2 && spacedToken.error.contains("--token must be") && !spacedToken.error.contains("two words"))
        for (variable, value, key) in [("ATTACHE_DASHBOARD_MAX_CLIENTS", "0", "dashboard.maxClients"),
                                       ("ATTACHE_DASHBOARD_ALLOWED_HOSTS", "https://dash.example.com", "dashboard.allowedHosts"),
                                       ("ATTACHE_DASHBOARD_TOKEN", "two words", "dashboard.token")] {
            let refused = try await Self.attache(["dashboard"], environment: kafka.merging([variable: value]) { $1 })
            #expect(refused.status == 2 && refused.error.contains(key), "\(variable)=\(value): \(refused.error)")
        }
    }

    @Test func configPrintHidesTheCredentialsInsideEveryURL() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let file = environment.workspace.appendingPathComponent("cli-config-urls.json")
        try Data((#"{"presign": {"url": "https://svc:presign-pass@presign.example/p?token=presign-token&a=1"},"#
                  + #" "kafka": {"properties": {"ssl.crl.location": "https://crl.example/crl.pem?sig=crl-signature"}}}"#).utf8).write(to: file)
        let printed = try await Self.attache(["config", "print", "--config", file.path], environment: [
            "ATTACHE_MESSAGES_URL": "https://bot:messages-pass@api.example/v3/messages?apikey=messages-key",
            "ATTACHE_KAFKA_BROKERS": "sasl_ssl://alice:broker-pass-1@b1.example:9092,sasl_ssl://alice:broker-pass-2@b2.example:9092",
            "ATTACHE_DASHBOARD_TOKEN": "dashboard-token-1"])
        #expect(printed.status == 0, "\(printed.error)")
        let lines = printed.output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(lines.contains("presign.url https://***@presign.example/p?token=***&a=*** file"))
        #expect(lines.contains("messages.url https://***@api.example/v3/messages?apikey=*** environment (ATTACHE_MESSAGES_URL)"))
        #expect(lines.contains("kafka.brokers sasl_ssl://***@b1.example:9092,sasl_ssl://***@b2.example:9092 environment (ATTACHE_KAFKA_BROKERS)"))
        #expect(lines.contains("kafka.properties.ssl.crl.location https://crl.example/crl.pem?sig=*** file"))
        #expect(lines.contains("dashboard.token (redacted) environment (ATTACHE_DASHBOARD_TOKEN)"))
        for secret in ["presign-pass", "presign-token", "messages-pass", "messages-key", "broker-pass", "crl-signature", "dashboard-token-1"] {
            #expect(!printed.output.contains(secret) && !printed.error.contains(secret), "\(secret) printed")
        }
    }

    @Test func configCheckAcceptsWhatAWorkerAcceptsAndPrintRedacts() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        let good = ["ATTACHE_KAFKA_BROKERS": environment.brokers, "ATTACHE_PRESIGN_URL": environment.services.presignURL,
                    "ATTACHE_MESSAGES_URL": environment.services.messagesURL, "ATTACHE_MESSAGES_API_KEY": "top-secret-key"]
        #expect(try await Self.attache(["config", "check"], environment: good).status == 0)
        let missing = try await Self.attache(["config", "check"], environment: ["ATTACHE_KAFKA_BROKERS": environment.brokers])
        #expect(missing.status == 1 && missing.error.contains("presign.url"))
        let badValue = try await Self.attache(["config", "check"], environment: good.merging(["ATTACHE_UPLOAD_CONCURRENCY": "many"]) { $1 })
        #expect(badValue.status == 1 && badValue.error.contains("ATTACHE_UPLOAD_CONCURRENCY"))
        let file = environment.workspace.appendingPathComponent("cli-config.json")
        try Data(#"{"limits": {"fileSizeMax": "2MiB"}, "kafka": {"properties": {"sasl.password": "hunter2"}}}"#.utf8).write(to: file)
        let printed = try await Self.attache(["config", "print", "--config", file.path], environment: good)
        #expect(printed.status == 0)
        let lines = printed.output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(lines.contains("limits.fileSizeMax 2MiB file"))
        #expect(lines.contains("limits.inlineMax 1MiB default"))
        #expect(lines.contains("messages.apiKey (redacted) environment (ATTACHE_MESSAGES_API_KEY)"))
        #expect(lines.contains("kafka.properties.sasl.password (redacted) file"))
        #expect(!printed.output.contains("hunter2") && !printed.output.contains("top-secret-key"))
    }

    @Test func submittedFilesAreUploadedSentAndShownFromTheChangelog() async throws {
        let (environment, kafka) = try await setUp()
        let batchId = "cli-submit-\(UUID().uuidString.prefix(8))"
        let local = try jpeg(environment, "\(batchId)-photo.jpg", size: 30_000, seed: 4)
        let onRoot = environment.sourceRoot.appendingPathComponent("\(batchId)/notes.pdf")
        try FileManager.default.createDirectory(at: onRoot.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Jobs.bytes(magic: Jobs.pdf, size: 50_000, seed: 5).write(to: onRoot)

        let inline = try await Self.attache(["submit", "--to", "user:uid-1", "--from", "uid-7", "--batch", batchId,
                                              "--caption", "From the CLI", local.path], environment: kafka)
        #expect(inline.status == 0, "\(inline.error)")
        #expect(inline.output == "\(batchId)\n")
        let path = try await Self.attache(["submit", "--to", "user:uid-1", "--batch", batchId, "--path-root", environment.sourceRoot.path,
                                           onRoot.path], environment: kafka)
        #expect(path.status == 0, "\(path.error)")
        _ = try await completed(environment, batchId, "attache.message.sent", count: 2)
        #expect(messages(environment, batchId: batchId).map(\.type) == ["image", "file"])

        let shown = try await eventually("the changelog to hold both files", timeout: .seconds(30)) { () -> [String: JSONValue]? in
            let show = try await Self.attache(["batch", "show", batchId, "--json"], environment: kafka)
            guard show.status == 0, let object = try JSONParser.parse(show.output.utf8).objectValue,
                  object["sent"]?.arrayValue?.count == 2 else { return nil }
            return object
        }
        #expect(shown["status"] == "idle")
        #expect(shown["count"] == 2)
        #expect(shown["attachments"]?.arrayValue?.compactMap { $0["fileId"]?.stringValue } == ["\(batchId)-photo.jpg", "notes.pdf"])
        #expect(shown["send"] == "auto")
        #expect(shown["receiver"] == ["id": "uid-1", "type": "user"])

        let text = try await Self.attache(["batch", "show", batchId], environment: kafka)
        #expect(text.status == 0 && text.output.contains("  status       idle") && text.output.contains("sent (2 messages"))
        let listed = try await Self.attache(["batch", "list", "--receiver", "uid-1", "--state", "idle", "--limit", "1000"], environment: kafka)
        #expect(listed.status == 0 && listed.output.contains("\(batchId)  idle  user:uid-1  files 2"))
        let unknown = try await Self.attache(["batch", "show", "no-such-batch"], environment: kafka)
        #expect(unknown.status == 1)
    }

    @Test func aManualBatchIsSentByControlSend() async throws {
        let (environment, kafka) = try await setUp()
        let batchId = "cli-manual-\(UUID().uuidString.prefix(8))"
        let local = try jpeg(environment, "\(batchId).jpg", size: 8_000, seed: 6)
        let submitted = try await Self.attache(["submit", "--to", "group:g-1", "--batch", batchId, "--send", "manual", local.path],
                                               environment: kafka)
        #expect(submitted.status == 0, "\(submitted.error)")
        _ = try await completed(environment, batchId)
        #expect(messages(environment, batchId: batchId).isEmpty)

        let missing = try await Self.attache(["control", "send"], environment: kafka)
        #expect(missing.status == 2 && missing.error.contains("send needs --batch ID"))
        let sent = try await Self.attache(["control", "send", "--batch", batchId], environment: kafka)
        #expect(sent.status == 0, "\(sent.error)")
        #expect(sent.output.hasPrefix("send for batch \(batchId) produced to \(Self.jobsTopic)/"))
        _ = try await completed(environment, batchId, "attache.message.sent")
        #expect(messages(environment, batchId: batchId).map(\.type) == ["image"])
    }

    @Test func anInvalidRecordIsListedAndReplayedWithoutItsProvenance() async throws {
        let (environment, kafka) = try await setUp()
        let key = "cli-poison-\(UUID().uuidString.prefix(8))"
        try await Kcat.produce(brokers: environment.brokers, topic: Self.jobsTopic, [(key: key, value: "{\"kind\": \"\(key)\"}")])
        _ = try await completed(environment, key, "attache.job.invalid")

        let listed = try await eventually("the dead letter to be listed", timeout: .seconds(30)) { () -> String? in
            let list = try await Self.attache(["dlq", "list", "--match", key], environment: kafka)
            return list.status == 0 && list.output.contains("1 dead letter in") ? list.output : nil
        }
        #expect(listed.contains("from \(Self.jobsTopic)/"))
        #expect(listed.contains("key \(key)"))
        #expect(listed.contains("error: unknown kind '\(key)'"))
        #expect(listed.contains("value: {\"kind\": \"\(key)\"}"))

        let declined = try await Self.attache(["dlq", "replay", "--match", key], environment: kafka)
        #expect(declined.status == 1 && declined.output.contains("nothing replayed"))
        let replayed = try await Self.attache(["dlq", "replay", "--match", key, "--since", "10m", "--yes"], environment: kafka)
        #expect(replayed.status == 0, "\(replayed.error)")
        #expect(replayed.output.contains("replayed 1 to \(Self.jobsTopic)"))
        _ = try await completed(environment, key, "attache.job.invalid", count: 2)
        let copies = try await Kcat.consume(brokers: environment.brokers, topic: Self.jobsTopic).filter { $0.key == key }
        #expect(copies.count == 2)
        #expect(copies.allSatisfy { $0.value == "{\"kind\": \"\(key)\"}" && !$0.headers.contains("attache.") })
    }

    /// Every line of `output` as a JSON object (nil when one is not).
    private func jsonLines(_ output: String) -> [[String: JSONValue]]? {
        let objects = output.split(separator: "\n").map { (try? JSONParser.parse($0.utf8))?.objectValue }
        return objects.contains { $0 == nil } ? nil : objects.compactMap { $0 }
    }

    @Test func watchPrintsEachEventAsAJSONLineAndEndsWhenTheBatchIsIdle() async throws {
        let (environment, kafka) = try await setUp()
        let batchId = "cli-watch-\(UUID().uuidString.prefix(8))"
        let local = try jpeg(environment, "\(batchId).jpg", size: 20_000, seed: 7)
        #expect(try await Self.attache(["submit", "--to", "user:uid-1", "--batch", batchId, local.path], environment: kafka).status == 0)

        let watched = try await Self.attache(["watch", batchId, "--from-beginning", "--until-idle"], environment: kafka)
        #expect(watched.status == 0, "\(watched.error)")
        try check(watched, batchId: batchId)

        // A batch already done when the watch begins: from the beginning, its events are shown before the watch ends.
        _ = try await completed(environment, batchId, "attache.message.sent")
        let late = try await Self.attache(["watch", batchId, "--from-beginning", "--until-idle"], environment: kafka)
        #expect(late.status == 0, "\(late.error)")
        try check(late, batchId: batchId)
        let usage = try await Self.attache(["watch"], environment: kafka)
        #expect(usage.status == 2 && usage.error.contains("name the batches to watch, or --all"))
    }

    private func check(_ watched: (status: Int32, output: String, error: String), batchId: String) throws {
        #expect(!watched.output.contains("\u{1B}"), "no escape codes off a terminal")
        let events = try #require(jsonLines(watched.output))
        #expect(events.allSatisfy { $0["subject"]?.stringValue == batchId && $0["specversion"] == "1.0" })
        let types = events.compactMap { $0["type"]?.stringValue }
        #expect(types.contains("attache.file.uploaded") && types.contains("attache.batch.completed"))
        #expect(types.last == "attache.message.sent", "idle with its sends done: \(types)")
    }

    @Test func submitRefusesAJobTooLargeForOneRecordBeforeProducingIt() async throws {
        let (environment, kafka) = try await setUp()
        // Each under limits.inlineMax (1 MiB); together, base64-encoded, well over a Kafka record's 1 MB.
        let files = try (1...2).map { try jpeg(environment, "large-\(UUID().uuidString.prefix(6))-\($0).jpg", size: 600_000, seed: 20 + $0) }
        let submitted = try await Self.attache(["submit", "--to", "user:uid-1", "--watch"] + files.map(\.path), environment: kafka)
        #expect(submitted.status == 1)
        #expect(submitted.error.contains("more than one Kafka record may hold"), "\(submitted.error)")
        #expect(submitted.output.isEmpty, "no batch id: nothing was produced")
    }

    @Test func submitWatchFollowsTheBatchAndExitsOneWhenAFileIsRejected() async throws {
        let (environment, kafka) = try await setUp()
        let good = try jpeg(environment, "watched-\(UUID().uuidString.prefix(8)).jpg", size: 12_000, seed: 8)
        let empty = environment.workspace.appendingPathComponent("empty-\(UUID().uuidString.prefix(8)).txt")
        try Data().write(to: empty)

        let fine = try await Self.attache(["submit", "--to", "user:uid-1", "--watch", good.path], environment: kafka)
        #expect(fine.status == 0, "\(fine.error)")
        let fineLines = fine.output.split(separator: "\n").map(String.init)
        let batchId = try #require(fineLines.first)
        let events = try #require(jsonLines(fineLines.dropFirst().joined(separator: "\n")))
        #expect(events.contains { $0["type"] == "attache.batch.completed" && $0["subject"]?.stringValue == batchId })
        #expect(messages(environment, batchId: batchId).count == 1)

        let rejected = try await Self.attache(["submit", "--to", "user:uid-1", "--send", "none", "--watch", good.path, empty.path],
                                              environment: kafka)
        #expect(rejected.status == 1, "\(rejected.error)")
        #expect(rejected.output.contains("attache.file.rejected"))
    }
}
