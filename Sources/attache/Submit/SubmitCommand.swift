import Foundation
import KafkaIO
import OperatorTools

/// `attache submit … FILE|URL…`: builds one upload job, produces it to the jobs topic, prints the batch id.
enum SubmitCommand {
    static let usage = """
    usage: attache submit --to user:ID|group:ID [--from UID] [--batch ID] [--concurrency N] [--caption TEXT]
                          [--send auto|manual|none] [--path-root DIR] [--watch] [--config FILE] FILE|URL…

    Builds one upload job (DESIGN §2.1) and produces it to the jobs topic, keyed by its batch id, which it prints.
    An http(s) URL becomes a `url` source (named after the URL path's last part); a local file is sent inline as
    `data` — refused with a message above limits.inlineMax — or, with --path-root, becomes a `path` source: its path
    relative to DIR, which should be the worker's sources.root as seen from here. File ids are the file names, a
    repeated name getting -2, -3… before its extension. Exits 0 once the job is produced, 1 when it could not be,
    2 on usage errors. With --watch it then follows the batch as `attache watch BATCH --until-idle` does (progress
    bars on a terminal, JSON lines otherwise) and exits 0 when every file was uploaded (and, with --send auto, sent),
    1 when any was rejected or failed.

    options:
      --to user:ID|group:ID   the receiver of the messages (required)
      --from UID              the sender messages go out on behalf of
      --batch ID              the batch to create or join (default: a new UUID)
      --concurrency N         files of the batch uploading at once (1 to 1000; default: upload.concurrency)
      --caption TEXT          the caption of the first message
      --send MODE             auto (send on drain, the default), manual (wait for `control send`), none
      --path-root DIR         send local files as path sources relative to DIR instead of inline
      --watch                 follow the batch until it is idle with its sends done
      --config FILE           the JSON configuration file (kafka.*, limits.inlineMax, limits.filesPerJob)
    """

    static let flags = ["to": true, "from": true, "batch": true, "concurrency": true, "caption": true, "send": true,
                        "path-root": true, "watch": false, "config": true]

    static func run(_ arguments: CommandLineArguments) async -> Int32 {
        guard let client = ClientConfiguration.load(command: "submit", file: arguments.options["config"]) else { return 2 }
        let options = arguments.options
        let request = SubmitJob.Request(to: options["to"], from: options["from"], batchId: options["batch"],
                                        concurrency: options["concurrency"], caption: options["caption"], send: options["send"],
                                        pathRoot: options["path-root"], inputs: arguments.positionals)
        let limits = client.configuration.limits
        let job: SubmitJob
        do {
            job = try SubmitJob(request, limits: .init(inlineMax: limits.inlineMax, filesPerJob: limits.filesPerJob))
        } catch {
            return Console.usageError("submit", error.description)
        }
        let value = job.value
        let record = KafkaProducerRecord(topic: client.configuration.kafka.jobsTopic, key: Data(job.key), value: Data(value))
        // Inline files under limits.inlineMax each can still add up past what one Kafka record may hold: say so
        // before the broker refuses it.
        let recordLimit = client.configuration.kafka.properties["message.max.bytes"].flatMap(Int.init) ?? 1_000_000
        if value.count + job.key.count > recordLimit {
            Console.error("submit", "the job is \(value.count) bytes, more than one Kafka record may hold (message.max.bytes, "
                + "\(recordLimit)); send large files as paths (--path-root) or URLs, or fewer files per job")
            return 1
        }
        guard options["watch"] != nil else {
            do {
                _ = try await client.produce([record], command: "submit")
            } catch {
                Console.error("submit", "could not produce the job: \(error)")
                return 1
            }
            Console.output(job.batchId)
            return 0
        }
        // Following starts first, so that none of the batch's events is missed; done means its snapshot applied the
        // job just produced.
        let session = WatchSession(client: client, batches: [job.batchId], fromBeginning: false, untilIdle: true)
        let batchId = job.batchId
        return await session.run {
            let reports = try await client.produce([record], command: "submit")
            Console.output(batchId)
            return [batchId: reports.first?.offset ?? 0]
        }
    }
}
