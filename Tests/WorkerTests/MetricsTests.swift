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
    }
}
