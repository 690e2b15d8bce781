import Foundation

/// `attache watch [BATCH…|--all] [--from-beginning] [--until-idle]`.
enum WatchCommand {
    static let usage = """
    usage: attache watch BATCH…|--all [--from-beginning] [--until-idle] [--config FILE]

    Follows the events topic (kafka.eventsTopic) outside any consumer group, from its end (or its start with
    --from-beginning), for the batches named or, with --all, for every batch. On a terminal: one live progress bar per
    file (name, percent, bytes, rate, state, error code), redrawn in place at most four times a second, and a line per
    message and per drain. Otherwise: every event as one line of JSON, as it is on the topic.
    Runs until SIGINT/SIGTERM (exit 0), or with --until-idle until every watched batch is idle with its sends done —
    judged from the batch-state changelog — then exits 0 when all their files were uploaded (and, sending on their
    own, sent) and 1 when any was rejected or failed. Exits 2 on usage errors.

    options:
      --all             every batch (instead of naming them)
      --from-beginning  from the start of the events topic
      --until-idle      exit once the watched batches are idle with their sends done (with --all: those seen)
      --config FILE     the JSON configuration file (kafka.*, ATTACHE_KAFKA_*)
    """

    static let flags = ["all": false, "from-beginning": false, "until-idle": false, "config": true]

    static func run(_ arguments: CommandLineArguments) async -> Int32 {
        let all = arguments.options["all"] != nil
        guard all != !arguments.positionals.isEmpty else {
            return Console.usageError("watch", all ? "--all and batch ids exclude each other" : "name the batches to watch, or --all")
        }
        guard let client = ClientConfiguration.load(command: "watch", file: arguments.options["config"]) else { return 2 }
        let session = WatchSession(client: client, batches: all ? nil : Set(arguments.positionals),
                                   fromBeginning: arguments.options["from-beginning"] != nil,
                                   untilIdle: arguments.options["until-idle"] != nil)
        return await session.run()
    }
}
