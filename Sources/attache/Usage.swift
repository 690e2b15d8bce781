/// Usage texts of the commands.
enum Usage {
    static let general = """
    attache — upload jobs from Kafka to object storage, with events and messages

    usage: attache <command> [options]

    commands:
      worker       run a worker until SIGTERM/SIGINT
      dev-broker   serve an in-process Kafka mock cluster over TCP
      demo         run the whole pipeline on embedded components and show it
      config       check the configuration, or print every key's effective value and origin
      submit       produce one upload job of local files or URLs and print its batch id
      control      produce a control record (retry, remove, clear, send, configure) for a batch
      batch        show one batch, or list batches, as the changelog topic holds them
      dlq          list dead letters, or replay them to the jobs topic
      storage      list, then abort, the incomplete multipart uploads no batch references
      watch        follow batches' events: live progress bars on a terminal, JSON lines otherwise
      dashboard    serve the live dashboard: batches, errors, throughput, dead letters, workers

    `attache <command> --help` describes a command; `attache --version` prints the version.
    """

    static let worker = """
    usage: attache worker [--config FILE]

    Consumes upload jobs, uploads their files, publishes events and sends messages until SIGTERM or SIGINT; then
    drains in-flight batches and closes within worker.shutdownGrace, commits and exits 0. A fatal error stops it the
    same way and exits 1. A second signal exits at once.
    Configuration comes from FILE (JSON) and ATTACHE_* environment variables, the environment winning; unknown keys
    and bad values stop the start with a message naming the key.

    options:
      --config FILE   the JSON configuration file
    """

    static let devBroker = """
    usage: attache dev-broker [--brokers N] [--port P] [--faults] [--services]

    Serves a librdkafka mock cluster with N brokers (default 1) over TCP on 127.0.0.1. The first line on standard
    output is the bootstrap address list, for workers and for kcat. Runs until SIGTERM or SIGINT.

    options:
      --brokers N   number of brokers (1 to 9)
      --port P      bootstrap on 127.0.0.1:P (the brokers themselves keep ports of their own choosing, which
                    clients learn from the cluster's metadata)
      --faults      read fault commands from standard input, one a line, and answer each on standard output
                    with `ok` or `error: <why>`; the end of input stops the reading, not the broker:
                      down B | up B                  broker B (1 to N) refuses connections / accepts them again
                      rtt B MS                       broker B answers every request MS milliseconds late
                      leader TOPIC PARTITION B       the partition's leadership moves to broker B
                      coordinator GROUP B            the consumer group's coordinator moves to broker B
                      errors API CODE[,CODE…]        the next requests of API fail with these codes, one each
                      clear API                      forgets the errors still queued for API
                    API: produce, fetch, offsetcommit, heartbeat, metadata, joingroup, syncgroup,
                    findcoordinator. CODE: a Kafka protocol number or a name such as NOT_LEADER_FOR_PARTITION,
                    REQUEST_TIMED_OUT, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, REBALANCE_IN_PROGRESS
      --services    also serve a presign endpoint, an object store and a message API on 127.0.0.1 (for trying
                    Attache out), and print after the bootstrap line the settings that use them, one
                    `ATTACHE_…=value` a line (ATTACHE_KAFKA_BROKERS, ATTACHE_PRESIGN_URL, ATTACHE_MESSAGES_URL,
                    ATTACHE_MESSAGES_API_KEY): `export $(grep = FILE)` after writing the output to FILE
    """

    static let demo = """
    usage: attache demo [--dashboard]

    Runs the whole pipeline on embedded components, all in this process on 127.0.0.1: a Kafka mock cluster, an object
    store, a presign service and a message API. A worker takes one realistic batch from the jobs topic — photos, a
    video, an audio clip, a PDF, one oversized file and one file whose first upload attempt fails — and everything it
    publishes is shown as it happens, then the messages sent grouped by type and the final UploadResult. Exits 0.

    options:
      --dashboard   also serve the live dashboard (with controls) on dashboard.listen, 127.0.0.1:9470 unless that is
                    taken, print its address, and keep it, the worker and the Kafka cluster up after the story until
                    SIGINT or SIGTERM (Ctrl-C)
    """

    /// The flags each command accepts, and whether they take a value.
    static func flags(of command: String) -> [String: Bool]? {
        switch command {
        case "worker": ["config": true]
        case "dev-broker": ["brokers": true, "port": true, "faults": false, "services": false]
        case "demo": ["dashboard": false]
        case "config": ConfigCommand.flags
        case "control": ControlCommand.flags
        case "submit": SubmitCommand.flags
        case "batch": BatchCommand.flags
        case "dlq": DeadLetterCommand.flags
        case "storage": StorageCommand.flags
        case "watch": WatchCommand.flags
        case "dashboard": DashboardCommand.flags
        default: nil
        }
    }

    static func text(of command: String?) -> String {
        switch command {
        case "worker": worker
        case "dev-broker": devBroker
        case "demo": demo
        case "config": ConfigCommand.usage
        case "control": ControlCommand.usage
        case "submit": SubmitCommand.usage
        case "batch": BatchCommand.usage
        case "dlq": DeadLetterCommand.usage
        case "storage": StorageCommand.usage
        case "watch": WatchCommand.usage
        case "dashboard": DashboardCommand.usage
        default: general
        }
    }
}
