import Foundation
import OperatorTools
import UploadEngine

/// `attache batch show BATCH [--json]` / `attache batch list [--receiver ID] [--state idle|in-progress]`: batches as
/// the changelog topic holds them (DESIGN §4.1), read outside any worker.
enum BatchCommand {
    static let usage = """
    usage: attache batch show BATCH [--json] [--config FILE]
           attache batch list [--receiver ID] [--state idle|in-progress] [--limit N] [--page P] [--config FILE]

    Reads the batch-state changelog (kafka.batchesTopic) to its end — the latest snapshot of each batch; cleared and
    expired batches are gone — outside any consumer group.

    show   one batch: receiver, status, count, attachments in input order and by type, rejected and failed files with
           their errors, the messages sent and what is not sent yet; with --json the same as one JSON object.
           Exits 1 when the changelog holds no such batch
    list   one line per batch, newest change first, --limit (default 20) a page; --page P (from 1) shows page P, and
           the line after a full page names the next one

    options:
      --json           show: JSON instead of text
      --receiver ID    list: only batches for this receiver id
      --state STATE    list: only idle or in-progress batches
      --limit N        list: batches per page (1 to 10000)
      --page P         list: the page to show
      --config FILE    the JSON configuration file (kafka.*, ATTACHE_KAFKA_*)
    """

    static let flags = ["json": false, "receiver": true, "state": true, "limit": true, "page": true, "config": true]

    static func run(_ arguments: CommandLineArguments) async -> Int32 {
        let options = arguments.options
        let action = arguments.positionals.first
        switch action {
        case "show":
            guard arguments.positionals.count == 2 else { return Console.usageError("batch", "show needs one BATCH id") }
            guard options["receiver"] == nil, options["state"] == nil, options["limit"] == nil, options["page"] == nil else {
                return Console.usageError("batch", "--receiver, --state, --limit and --page are for list")
            }
        case "list":
            guard arguments.positionals.count == 1 else { return Console.usageError("batch", "list takes no BATCH id") }
            guard options["json"] == nil else { return Console.usageError("batch", "--json is for show") }
        default:
            return Console.usageError("batch", "expected show or list")
        }
        var listing: BatchListing?
        if action == "list" {
            do {
                listing = try BatchListing(receiver: options["receiver"], state: options["state"], limit: options["limit"],
                                           page: options["page"])
            } catch {
                return Console.usageError("batch", error.description)
            }
        }
        guard let client = ClientConfiguration.load(command: "batch", file: options["config"]) else { return 2 }
        let topic = client.configuration.kafka.batchesTopic
        let changelog: ChangelogBatches
        do {
            changelog = try await ChangelogBatches.read(topic: topic, kafka: client.kafka(clientID: "attache-batch"))
        } catch {
            Console.error("batch", "could not read \(topic): \(error)")
            return 1
        }
        if let listing {
            let decoded = changelog.batches(configuration: client.configuration.engine)
            for (key, reason) in decoded.unreadable { Console.error("batch", "skipping batch \(key): \(reason)") }
            let page = listing.page(of: decoded.batches.map { BatchView($0.batch) })
            for view in page.views { Console.output(view.listLine) }
            if let next = page.nextPage { Console.output("more: --page \(next)") }
            return 0
        }
        let id = arguments.positionals[1]
        let entry: ChangelogBatches.Entry
        do {
            guard let found = try changelog.batch(id, configuration: client.configuration.engine) else {
                Console.error("batch", "no batch \(id) in \(topic)")
                return 1
            }
            entry = found
        } catch {
            Console.error("batch", "batch \(id): \(error)")
            return 1
        }
        let view = BatchView(entry.batch)
        Console.output(options["json"] != nil ? String(decoding: view.json, as: UTF8.self) : view.text)
        return 0
    }
}
