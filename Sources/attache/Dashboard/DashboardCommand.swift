import Dashboard
import Foundation
import OperatorTools
import Worker

/// `attache dashboard [--listen ADDR] [--allow-controls] [--token T] [--since TIME]`: serves the live dashboard
/// (DESIGN §10) until SIGTERM/SIGINT; the first line on standard output is the page's address (never the token).
enum DashboardCommand {
    static let usage = """
    usage: attache dashboard [--listen ADDR] [--allow-controls] [--token T] [--since TIME] [--config FILE]

    Serves the live dashboard on the embedded HTTP server: one page (every asset in this binary) fed from the events
    topic, the jobs topic (receivers, file names and sizes, controls) and the dead-letter topic, each read from its
    start and then followed, and pushed to the browser over server-sent events. Batches (a live table, filters,
    a page per batch), errors by code, throughput per worker, dead letters and workers seen. The first line on
    standard output is the page's address. Runs until SIGTERM or SIGINT.

    options:
      --listen ADDR      host:port to serve on (default: dashboard.listen, 127.0.0.1:9470); port 0 picks one
      --allow-controls   offer Retry and Remove on failed files and Send on batches, which produce control records
                         to the jobs topic; without it the page is read-only and control requests are refused
      --token T          every request needs T: as Authorization: Bearer T, or the cookie that opening /?token=T
                         sets (default: dashboard.token, ATTACHE_DASHBOARD_TOKEN, which keeps it out of the process list)
      --since TIME       skip records older than TIME: an RFC 3339 time or a duration back from now (30m, 2h)
      --config FILE      the JSON configuration file (kafka.*, ATTACHE_KAFKA_*, dashboard.*)

    The dashboard answers only requests whose Host is its listen address, localhost, 127.0.0.1 or [::1] with its port,
    or a name in dashboard.allowedHosts (421 otherwise); controls need the page's own CSRF token; at most
    dashboard.maxClients live streams are served at once.
    """

    static let flags = ["listen": true, "allow-controls": false, "token": true, "since": true, "config": true]

    static func run(_ arguments: CommandLineArguments) async -> Int32 {
        if let extra = arguments.positionals.first { return Console.usageError("dashboard", "unexpected argument '\(extra)'") }
        let since: Date?
        do {
            since = try DeadLetterSelection(since: arguments.options["since"], match: nil, limit: nil).since
        } catch {
            return Console.usageError("dashboard", error.description)
        }
        if let listen = arguments.options["listen"], AttacheConfiguration.hostAndPort(listen) == nil {
            return Console.usageError("dashboard", "--listen must be host:port")
        }
        let token = arguments.options["token"]
        if let token {
            guard !token.isEmpty else { return Console.usageError("dashboard", "--token must not be empty") }
            do {
                try AttacheConfiguration.checkDashboardToken(token, key: "--token")
            } catch {
                return Console.usageError("dashboard", "--token \(error.problem)")
            }
        }
        guard let client = ClientConfiguration.load(command: "dashboard", file: arguments.options["config"]) else { return 2 }
        do {
            try client.configuration.validateDashboard()
        } catch {
            Console.error("dashboard", "configuration: \(error)")
            return 2
        }
        let runtime: DashboardRuntime
        do {
            runtime = try DashboardRuntime(settings: DashboardSettings(client.configuration, listen: arguments.options["listen"], token: token),
                                           kafka: client.kafka(clientID: "attache-dashboard"),
                                           allowControls: arguments.options["allow-controls"] != nil, since: since)
        } catch {
            Console.error("dashboard", "\(error)")
            return 1
        }
        Console.output(runtime.pageURL)
        let feed = Task {
            try await runtime.run { topic in Console.error("dashboard", "topic \(topic) does not exist yet; it is followed once it does") }
        }
        TerminationSignals.watch { _ in feed.cancel() }
        let status: Int32
        do {
            try await feed.value
            status = 0
        } catch is CancellationError {
            status = 0
        } catch {
            Console.error("dashboard", "reading the topics failed: \(error)")
            status = 1
        }
        await runtime.stop()
        return status
    }
}
