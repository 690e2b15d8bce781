import Testing
import UploadEngine
@testable import Worker

@Suite struct MetricsTests {
    @Test func countersGaugesAndHistogramsRenderInPrometheusText() {
        let registry = MetricsRegistry()
        registry.declare("t_total", .counter, help: "A counter.", labels: ["code": ["ERR_\"X\""]])
        registry.declare("t_gauge", .gauge, help: "A gauge.")
        registry.declare("t_seconds", .histogram, help: "A histogram.", buckets: [0.1, 1])
        registry.increment("t_total", labels: ["code": "ERR_\"X\""])
        registry.increment("t_total", by: 2, labels: ["code": "ERR_\"X\""])
        registry.set("t_gauge", 7)
        registry.observe("t_seconds", 0.05)
        registry.observe("t_seconds", 0.5)
        registry.observe("t_seconds", 3)
        #expect(registry.render() == """
        # HELP t_total A counter.
        # TYPE t_total counter
        t_total{code="ERR_\\"X\\""} 3
        # HELP t_gauge A gauge.
        # TYPE t_gauge gauge
        t_gauge 7
        # HELP t_seconds A histogram.
        # TYPE t_seconds histogram
        t_seconds_bucket{le="0.1"} 1
        t_seconds_bucket{le="1"} 2
        t_seconds_bucket{le="+Inf"} 3
        t_seconds_sum 3.55
        t_seconds_count 3

        """)
    }

    @Test func onlyTenantsNamedInTheWeightsGetSeriesOfTheirOwn() {
        let metrics = WorkerMetrics()
        metrics.declareTenants(["acme"])
        metrics.refreshTenants([.init(tenant: "acme", held: 2, waiting: 5), .init(tenant: "globex", held: 1, waiting: 7),
                                .init(tenant: "initech", held: 3, waiting: 0)], named: ["acme"])
        metrics.countUploaded(100, tenant: "acme")
        metrics.countUploaded(40, tenant: "umbrella")
        metrics.countUploaded(2, tenant: "hooli")
        let registry = metrics.registry
        #expect(registry.value(WorkerMetrics.tenantTransfers, labels: ["tenant": "acme"]) == 2)
        #expect(registry.value(WorkerMetrics.tenantTransfers, labels: ["tenant": "other"]) == 4)
        #expect(registry.value(WorkerMetrics.tenantQueuedFiles, labels: ["tenant": "other"]) == 7)
        #expect(registry.value(WorkerMetrics.tenantBytes, labels: ["tenant": "acme"]) == 100)
        #expect(registry.value(WorkerMetrics.tenantBytes, labels: ["tenant": "other"]) == 42)
        let text = registry.render()
        for unnamed in ["globex", "initech", "umbrella", "hooli"] { #expect(!text.contains(unnamed)) }
        // An idle named tenant still reads 0, and one gone from the shares leaves no stale value.
        metrics.refreshTenants([], named: ["acme"])
        #expect(registry.value(WorkerMetrics.tenantTransfers, labels: ["tenant": "acme"]) == 0)
        #expect(registry.value(WorkerMetrics.tenantTransfers, labels: ["tenant": "other"]) == 0)
    }

    @Test func engineEventsCountFilesByOutcomeAndCode() {
        let metrics = WorkerMetrics()
        let attachment = UploadEngine.Attachment(fileId: "f", name: "a.png", url: "https://x/a", mimeType: "image/png", size: 1500, sha256: "")
        for kind: UploadEvent.Kind in [.uploaded(attachment), .rejected(UploadError(.fileDataEmpty, "x")),
                                       .failed(UploadError(.uploadStalled, "x"), attempt: 1, willRetry: true),
                                       .failed(UploadError(.uploadStalled, "x"), attempt: 3, willRetry: false), .removed] {
            metrics.record(UploadEvent(batchId: "b", requestId: "r", fileId: "f", kind: kind))
        }
        let registry = metrics.registry
        #expect(registry.value(WorkerMetrics.files, labels: ["outcome": "uploaded"]) == 1)
        #expect(registry.value(WorkerMetrics.bytes) == 1500)
        #expect(registry.value(WorkerMetrics.files, labels: ["outcome": "rejected", "code": "ERR_FILE_DATA_EMPTY"]) == 1)
        #expect(registry.value(WorkerMetrics.files, labels: ["outcome": "retrying", "code": "ERR_UPLOAD_STALLED"]) == 1)
        #expect(registry.value(WorkerMetrics.files, labels: ["outcome": "failed", "code": "ERR_UPLOAD_STALLED"]) == 1)
        #expect(registry.render().contains("# TYPE attache_upload_duration_seconds histogram"))
        // Messages too, and nothing the events did not count shows up: the handles made at start are not series.
        metrics.record(UploadEvent(batchId: "b", requestId: "r", fileId: "f", kind: .messageSent(muid: "m", type: .file, fileIds: ["f"], responseId: nil)))
        #expect(registry.value(WorkerMetrics.messages, labels: ["outcome": "sent"]) == 1)
        let files = registry.render().split(separator: "\n").filter { $0.hasPrefix(WorkerMetrics.files + "{") }
        #expect(files.count == 5)
        #expect(!registry.render().contains("attache_messages_total{outcome=\"failed\"}"))
    }

    @Test func jobsAreCountedByKindAndOutcomeAndAnUnknownKindAsOther() {
        let metrics = WorkerMetrics()
        metrics.countJob(kind: "upload", outcome: "accepted")
        metrics.countJob(kind: "upload", outcome: "accepted")
        metrics.countJob(kind: "invalid", outcome: "dead-lettered")
        metrics.countJob(kind: "made-up", outcome: "accepted")
        let registry = metrics.registry
        #expect(registry.value(WorkerMetrics.jobs, labels: ["kind": "upload", "outcome": "accepted"]) == 2)
        #expect(registry.value(WorkerMetrics.jobs, labels: ["kind": "invalid", "outcome": "dead-lettered"]) == 1)
        #expect(registry.value(WorkerMetrics.jobs, labels: ["kind": "other", "outcome": "accepted"]) == 1)
        #expect(registry.render().split(separator: "\n").filter { $0.hasPrefix(WorkerMetrics.jobs + "{") }.count == 3)
    }

    @Test func aCounterHandleIsTheSeriesIncrementNames() {
        let registry = MetricsRegistry()
        registry.declare("h_total", .counter, help: "Handled.", labels: ["code": ["A", "B"]])
        let a = registry.counter("h_total", labels: ["code": "A"])
        let unknown = registry.counter("h_total", labels: ["code": "Z", "extra": "dropped"])
        // Resolved, not yet counted: no series.
        #expect(!registry.render().contains("h_total{"))
        a.increment()
        a.increment(by: 2)
        registry.increment("h_total", labels: ["code": "A"])
        unknown.increment()
        #expect(registry.value("h_total", labels: ["code": "A"]) == 4)
        #expect(registry.value("h_total", labels: ["code": "other"]) == 1)
        #expect(registry.render().contains("h_total{code=\"A\"} 4\nh_total{code=\"other\"} 1\n"))
        // A family never declared counts nothing, through a handle as through increment.
        registry.counter("undeclared_total").increment()
        #expect(!registry.render().contains("undeclared_total"))
    }

    @Test func aReplacedSeriesDisappearsAndComesBackWithItsNewValue() {
        let registry = MetricsRegistry()
        registry.declare("g", .gauge, help: "Replaced.", labels: ["p": ["0", "1"]])
        registry.replace("g", with: [(["p": "0"], 3), (["p": "1"], 4)])
        registry.replace("g", with: [(["p": "1"], 5)])
        #expect(!registry.render().contains("g{p=\"0\"}"))
        #expect(registry.value("g", labels: ["p": "0"]) == 0)
        #expect(registry.value("g", labels: ["p": "1"]) == 5)
        registry.replace("g", with: [(["p": "0"], 6)])
        #expect(registry.render().hasSuffix("g{p=\"0\"} 6\n"))
    }
}

/// "Metrics stay bounded" (`docs/contract.md` §4): label values come from closed sets.
@Suite struct MetricLabelBoundsTests {
    @Test func errorCodesAServerInventsAllCountAsOther() {
        let metrics = WorkerMetrics()
        for number in 0..<1000 {
            let invented = UploadError(UploadErrorCode("ERR_POLICY_\(number)"), "refused", retryable: false)
            metrics.record(UploadEvent(batchId: "b", requestId: "r", fileId: "f\(number)", kind: .rejected(invented)))
        }
        metrics.record(UploadEvent(batchId: "b", requestId: "r", fileId: "g", kind: .rejected(UploadError(.fileDataEmpty, "x"))))
        let registry = metrics.registry
        #expect(registry.value(WorkerMetrics.files, labels: ["outcome": "rejected", "code": "other"]) == 1000)
        #expect(registry.value(WorkerMetrics.files, labels: ["outcome": "rejected", "code": "ERR_FILE_DATA_EMPTY"]) == 1)
        let series = registry.render().split(separator: "\n").filter { $0.hasPrefix(WorkerMetrics.files + "{") }
        #expect(series.count == 2)
        #expect(!registry.render().contains("ERR_POLICY_"))
    }

    @Test func everyCodeTheContractNamesKeepsItsOwnSeries() {
        let metrics = WorkerMetrics()
        for code in UploadErrorCode.contractCodes {
            metrics.record(UploadEvent(batchId: "b", requestId: "r", fileId: "f", kind: .failed(UploadError(code, "x"), attempt: 1, willRetry: false)))
        }
        for code in UploadErrorCode.contractCodes {
            #expect(metrics.registry.value(WorkerMetrics.files, labels: ["outcome": "failed", "code": code.rawValue]) == 1)
        }
    }

    @Test func aValueOrLabelOutsideTheDeclaredSetsCreatesNoSeries() {
        let registry = MetricsRegistry()
        registry.declare("t_total", .counter, help: "A counter.", labels: ["outcome": ["ok", "bad"]])
        registry.declare("t_plain", .counter, help: "No labels.")
        for number in 0..<100 {
            registry.increment("t_total", labels: ["outcome": "weird-\(number)"])
            registry.increment("t_total", labels: ["outcome": "ok", "batchId": "b\(number)"])
            registry.increment("t_plain", labels: ["fileId": "f\(number)"])
        }
        #expect(registry.render() == """
        # HELP t_total A counter.
        # TYPE t_total counter
        t_total{outcome="ok"} 100
        t_total{outcome="other"} 100
        # HELP t_plain No labels.
        # TYPE t_plain counter
        t_plain 100

        """)
    }
}
