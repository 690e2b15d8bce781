import Foundation
import KafkaIO
import UploadEngine
import WireFormat

extension TraceContext {
    /// The trace context a job record's `traceparent` / `tracestate` headers carry, by the header rules of DESIGN
    /// §2.1: a `traceparent` is taken only when the whole header is printable ASCII within its ``RecordField`` limit
    /// (then cut to its 55-character form), a `tracestate` only when it is within its own; any other value is
    /// ignored, never an error. nil without a usable `traceparent`. The last header of a name counts.
    public init?(kafkaHeaders headers: [KafkaHeader]) {
        guard !headers.isEmpty else { return nil }
        var parent: KafkaHeader?, state: KafkaHeader?
        for header in headers {
            if header.name == "traceparent" { parent = header }
            else if header.name == "tracestate" { state = header }
        }
        guard let parent, let traceparent = RecordField.traceparent.headerText(parent.value) else { return nil }
        self.init(traceparent: traceparent, tracestate: state.flatMap { RecordField.tracestate.headerText($0.value) })
    }

    /// `traceparent` and, if there is one, `tracestate`, as Kafka headers (the CloudEvents Kafka binding's
    /// distributed-tracing headers).
    public var kafkaHeaders: [KafkaHeader] {
        var headers = [KafkaHeader("traceparent", traceparent)]
        if let tracestate { headers.append(KafkaHeader("tracestate", tracestate)) }
        return headers
    }
}
