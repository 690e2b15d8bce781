import Foundation
import HTTPTransport
import OperatorTools
import S3
import UploadEngine
import WireFormat
import Worker

/// `attache storage sweep [--older-than D] [--yes]`: the incomplete multipart uploads under `presign.s3.prefix` that
/// no batch references (DESIGN §12), judged against the whole batch changelog; aborted with `--yes`.
enum StorageCommand {
    static let usage = """
    usage: attache storage sweep [--older-than D] [--yes] [--config FILE]

    Lists the incomplete multipart uploads under presign.s3.prefix in Attache's bucket (presign.mode s3) and judges
    each against the batch-state changelog (kafka.batchesTopic), read to its end outside any consumer group: an
    upload is an orphan when it is older than D and no batch's unfinished file will resume it (its batch is gone, or
    its batch records another upload). Uploads of batches whose record cannot be read, and keys Attache did not lay
    out, are kept. Without --yes nothing is changed; with it, each orphan is aborted (AbortMultipartUpload) and its
    parts freed. Exits 1 when the changelog or the bucket cannot be read, or an abort failed.

    options:
      --older-than D   only uploads created at least D ago (default 24h): younger ones may not be recorded yet
      --yes            abort the orphans
      --config FILE    the JSON configuration file (kafka.*, presign.s3.*; ATTACHE_* variables)
    """

    static let flags = ["older-than": true, "yes": false, "config": true]

    static func run(_ arguments: CommandLineArguments) async -> Int32 {
        guard arguments.positionals == ["sweep"] else { return Console.usageError("storage", "expected sweep") }
        let options = arguments.options
        let minimumAge = options["older-than"].map(ConfigurationValue.duration) ?? .seconds(24 * 3600)
        guard let minimumAge else {
            return Console.usageError("storage", "--older-than expects a duration such as 30m, 24h or 168h")
        }
        guard let client = ClientConfiguration.load(command: "storage", file: options["config"]) else { return 2 }
        let configuration = client.configuration
        guard configuration.presign.mode == .s3 else {
            return Console.usageError("storage", "storage sweep needs presign.mode s3: with a presign endpoint the bucket is the backend's")
        }
        let storage: S3Storage
        do {
            storage = try configuration.s3Storage(client: try HTTPClient())
        } catch {
            Console.error("storage", "\(error)")
            return 2
        }
        let topic = configuration.kafka.batchesTopic
        let changelog: ChangelogBatches
        do {
            changelog = try await ChangelogBatches.read(topic: topic, kafka: client.kafka(clientID: "attache-storage"))
        } catch {
            // Without the changelog every batch would look gone: nothing is judged, let alone aborted.
            Console.error("storage", "could not read \(topic): \(error); nothing was aborted")
            return 1
        }
        let uploads: [S3IncompleteUpload]
        do {
            uploads = try await storage.incompleteUploads()
        } catch {
            Console.error("storage", "could not list the incomplete multipart uploads: \(error)")
            return 1
        }
        let prefix = storage.presigner.configuration.keyPrefix
        let verdicts = S3OrphanedUploads(prefix: prefix, minimumAge: minimumAge)
            .judge(uploads, now: Date()) { knowledge(of: $0, in: changelog, configuration: configuration.engine) }
        for verdict in verdicts { Console.output(line(verdict)) }
        let orphans = verdicts.filter(\.isOrphan)
        Console.output("\(uploads.count) incomplete upload\(uploads.count == 1 ? "" : "s") under '\(prefix)': "
                       + "\(orphans.count) orphaned, \(uploads.count - orphans.count) kept")
        guard options["yes"] != nil else {
            if !orphans.isEmpty { Console.output("nothing aborted: run again with --yes to abort the orphans") }
            return 0
        }
        var failed = 0
        for verdict in orphans {
            do {
                try await storage.abortUpload(key: verdict.upload.key, uploadId: verdict.upload.uploadId)
                Console.output("aborted \(verdict.upload.key) \(verdict.upload.uploadId)")
            } catch {
                Console.error("storage", "could not abort \(verdict.upload.key) \(verdict.upload.uploadId): \(error)")
                failed += 1
            }
        }
        return failed == 0 ? 0 : 1
    }

    /// What the changelog says of a batch's uploads.
    static func knowledge(of batchId: String, in changelog: ChangelogBatches, configuration: EngineConfiguration)
        -> S3OrphanedUploads.BatchKnowledge
    {
        do {
            guard let entry = try changelog.batch(batchId, configuration: configuration) else { return .absent }
            return .references(Set(entry.batch.multipartUploads.map(\.uploadId)))
        } catch {
            return .unknown
        }
    }

    /// `orphan|kept  INITIATED  KEY  UPLOAD-ID  (reason)`.
    private static func line(_ verdict: S3OrphanedUploads.Verdict) -> String {
        let initiated = verdict.upload.initiated.map { ISO8601DateFormatter().string(from: $0) } ?? "-"
        return "\(verdict.isOrphan ? "orphan" : "kept  ")  \(initiated)  \(verdict.upload.key)  \(verdict.upload.uploadId)  (\(verdict.reason))"
    }
}
