import Foundation
import TestSupport
import Testing
import WireFormat

/// `deploy/grafana/attache.json` and `deploy/prometheus/alerts.yml` ask only for metrics a worker really exports:
/// a real worker on `attache dev-broker --services` is scraped once it has taken a job (so its per-partition commit
/// and lag series are there too), and every metric every panel, variable and rule names must be one of its families
/// (a histogram's `_bucket`, `_sum` and `_count` included).
@Suite(.timeLimit(.minutes(2))) struct MonitoringQueriesTests {
    /// Prometheus's own series, which no worker exports: `up`, one per scrape target (docs/runbook.md).
    static let prometheusSeries: Set<String> = ["up"]

    static let dashboard = SchemaCheck.packageRoot.appendingPathComponent("deploy/grafana/attache.json")
    static let rules = SchemaCheck.packageRoot.appendingPathComponent("deploy/prometheus/alerts.yml")

    @Test func everyDashboardQueryAndAlertRuleNamesAMetricALiveWorkerExports() async throws {
        let exported = try await Self.scrapeFamilies()
        #expect(exported.contains("attache_partition_lag") && exported.contains("attache_changelog_restore_duration_seconds"))
        let queries = try Self.dashboardQueries() + Self.ruleQueries()
        #expect(queries.count > 30)
        for (place, expression) in queries {
            let names = PromQLMetricNames.of(expression)
            #expect(!names.isEmpty, "\(place) names no metric: \(expression)")
            for name in names where !Self.isExported(name, families: exported) {
                Issue.record("\(place): \(name) is not exported by the worker (\(expression))")
            }
        }
    }

    @Test(arguments: [
        (#"sum by (namespace, job) (rate(attache_files_total{outcome=~"a|b", code!="x"}[$__rate_interval])) > 0.05"#,
         ["attache_files_total"]),
        (#"histogram_quantile(0.95, sum by (le) (rate(attache_upload_duration_seconds_bucket{instance=~"$instance"}[5m])))"#,
         ["attache_upload_duration_seconds_bucket"]),
        ("a_total / on (job) group_left b_total unless c offset 10m and 1e3 < d", ["a_total", "b_total", "c", "d"]),
        (#"label_values(attache_jobs_total{namespace=~"$namespace"}, instance)"#, ["attache_jobs_total"]),
        (#"up{job="attache"} == 0 or changes(process_start_time_seconds[30m]) >= 2"#, ["up", "process_start_time_seconds"]),
    ])
    func metricNamesAreFoundAndNothingElse(expression: String, expected: [String]) {
        #expect(PromQLMetricNames.of(expression) == expected)
    }

    @Test func ruleExpressionsAreReadInBothYAMLForms() {
        let rules = """
          - alert: A
            expr: up == 0
            for: 5m
          - alert: B
            expr: |
              sum(a)
              >
              sum(b)
            labels: {}
        """
        #expect(PromQLMetricNames.ruleExpressions(in: rules) == ["up == 0", "      sum(a)\n      >\n      sum(b)"])
    }

    private static func isExported(_ name: String, families: Set<String>) -> Bool {
        if families.contains(name) || prometheusSeries.contains(name) { return true }
        return ["_bucket", "_sum", "_count"].contains { name.hasSuffix($0) && families.contains(String(name.dropLast($0.count))) }
    }

    /// Every `expr` of every panel, and the query of every templating variable, with where it is.
    private static func dashboardQueries() throws -> [(String, String)] {
        let json = try JSONParser.parse(Data(contentsOf: dashboard))
        var queries: [(String, String)] = []
        for panel in json["panels"]?.arrayValue ?? [] where panel["type"] != "row" {
            let title = panel["title"]?.stringValue ?? "?"
            let targets = panel["targets"]?.arrayValue ?? []
            #expect(!targets.isEmpty, "panel \(title) has no query")
            for target in targets {
                queries.append(("panel '\(title)'", target["expr"]?.stringValue ?? ""))
            }
        }
        let variables = json["templating"]?["list"]?.arrayValue ?? []
        for variable in variables where variable["type"] == "query" {
            let query = variable["query"]?["query"]?.stringValue ?? variable["query"]?.stringValue ?? ""
            queries.append(("variable $\(variable["name"]?.stringValue ?? "?")", query))
        }
        return queries
    }

    private static func ruleQueries() throws -> [(String, String)] {
        PromQLMetricNames.ruleExpressions(in: try String(contentsOf: rules, encoding: .utf8)).map { ("alerts.yml", $0) }
    }

    /// The metric families (`# TYPE` lines) of a worker started the README's way, on `dev-broker --services`.
    private static func scrapeFamilies() async throws -> Set<String> {
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("attache-monitoring-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workspace) }
        let broker = try await ServicesBroker.start(name: "monitoring-broker", in: workspace)
        defer { broker.process.signal(SIGTERM) }
        let worker = try ChildProcess(name: "monitoring-worker", executable: EndToEndEnvironment.attacheBinary, arguments: ["worker"],
                                      environment: broker.settings.merging(["ATTACHE_ADMIN_LISTEN": "127.0.0.1:0", "ATTACHE_LOG_FORMAT": "text"]) { $1 },
                                      directory: workspace)
        defer { worker.signal(SIGTERM) }
        let port: Int
        do {
            port = try await eventually("the worker's admin port", timeout: .seconds(60)) {
                BrokerFaultTests.adminPort(in: worker.standardError)
            }
        } catch {
            throw EndToEndFailure("\(error); the worker's log:\n\(worker.standardError.suffix(3000))")
        }
        // One job, so that a partition has a record delivered: its committed offset and lag show from then on.
        let file = workspace.appendingPathComponent("hello.txt")
        try Data("hello".utf8).write(to: file)
        let submit = try ChildProcess(name: "monitoring-submit", executable: EndToEndEnvironment.attacheBinary,
                                      arguments: ["submit", "--to", "user:uid-1", "--send", "none", file.path],
                                      environment: ["ATTACHE_KAFKA_BROKERS": broker.settings["ATTACHE_KAFKA_BROKERS"] ?? ""],
                                      directory: workspace)
        #expect(await submit.waitForExit(timeout: .seconds(30)) == 0, "\(submit.standardError)")
        let text = try await eventually("a scrape with a partition's commit and lag", timeout: .seconds(60)) { () -> String? in
            let text = try await Self.get("http://127.0.0.1:\(port)/metrics")
            return text.contains("attache_worker_ready 1") && text.contains(#"attache_partition_lag{partition=""#)
                && text.contains(#"attache_partition_committed_offset{partition=""#) ? text : nil
        }
        return Set(text.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ")
            return fields.count == 4 && fields[0] == "#" && fields[1] == "TYPE" ? String(fields[2]) : nil
        })
    }

    /// The body `curl` gets from `url`.
    private static func get(_ url: String) async throws -> String {
        try await Subprocess.run("/usr/bin/curl", ["-fsS", "--max-time", "5", url]).outputText
    }
}
