import Foundation
import KafkaIO
import UploadEngine

extension TraceContext {
    /// The trace context a job record's `traceparent` / `tracestate` headers carry; nil without a valid
    /// `traceparent` (a malformed one is ignored, never an error: DESIGN §2.2). The last header of a name counts.
    init?(kafkaHeaders headers: [KafkaHeader]) {
        guard !headers.isEmpty else { return nil }
        var parent: String?, state: String?
        for header in headers {
            if header.name == "traceparent" { parent = header.stringValue }
            else if header.name == "tracestate" { state = header.stringValue }
        }
        guard let parent else { return nil }
        self.init(traceparent: parent, tracestate: state)
    }

    /// `traceparent` and, if there is one, `tracestate`, as Kafka headers (the CloudEvents Kafka binding's
    /// distributed-tracing headers).
    var kafkaHeaders: [KafkaHeader] {
        var headers = [KafkaHeader("traceparent", traceparent)]
        if let tracestate { headers.append(KafkaHeader("tracestate", tracestate)) }
        return headers
    }
}
