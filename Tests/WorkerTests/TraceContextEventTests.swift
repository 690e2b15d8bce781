import Foundation
import KafkaIO
import TestSupport
import Testing
import UploadEngine
import WireFormat
@testable import Records
@testable import Worker
import WireFormat


/// Trace context on the Kafka side: read from a job record's headers, written as event attributes and headers.
@Suite struct TraceContextEventTests {
    static let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test func aJobRecordsHeadersGiveItsTraceContextTheLastOfANameCounting() {
        let trace = TraceContext(kafkaHeaders: [KafkaHeader("traceparent", "junk"), KafkaHeader("tracestate", "a=1"),
                                                KafkaHeader("traceparent", Self.traceparent)])
        #expect(trace?.traceparent == Self.traceparent && trace?.tracestate == "a=1")
        #expect(TraceContext(kafkaHeaders: [KafkaHeader("tracestate", "a=1")]) == nil)
        #expect(TraceContext(kafkaHeaders: [KafkaHeader("traceparent", "00-zz")]) == nil)
        #expect(TraceContext(kafkaHeaders: []) == nil)
    }

    @Test func anEventWithATraceCarriesItAsAttributesAndItsRecordAsHeaders() throws {
        var upload = UploadEvent(batchId: "b", requestId: "r", fileId: "f", kind: .removed)
        upload.trace = TraceContext(traceparent: Self.traceparent, tracestate: "k=v")
        let json = try JSONParser.parse(CloudEventEncoder(workerId: "w").encode(.upload(upload), sequence: 1))
        #expect(json["traceparent"]?.stringValue == Self.traceparent)
        #expect(json["tracestate"] == "k=v")

        let producer = EventPublisherDeliveryTests.ScriptedProducer()
        let publisher = KafkaEventPublisher(producer: producer, topic: "events", encoder: CloudEventEncoder(workerId: "w"), logger: .silent)
        publisher.publish(.upload(upload), sequence: 1)
        publisher.publish(.upload(UploadEvent(batchId: "b", requestId: "r2", fileId: "g", kind: .removed)), sequence: 2)
        let headers = producer.state.withLock { $0.handed.map { $0.record.headers.map { "\($0.name)=\($0.stringValue ?? "")" } } }
        #expect(headers.first == ["content-type=application/cloudevents+json; charset=UTF-8", "traceparent=\(Self.traceparent)", "tracestate=k=v"])
        #expect(headers.last == ["content-type=application/cloudevents+json; charset=UTF-8"], "no trace, no trace headers")
    }

    @Test func anEventWithoutATraceHasNoTraceAttributes() throws {
        let event = WorkerEvent.upload(UploadEvent(batchId: "b", requestId: "r", fileId: "f", kind: .removed))
        let json = try JSONParser.parse(CloudEventEncoder(workerId: "w").encode(event, sequence: 1))
        #expect(json.objectValue != nil)
        #expect(json["traceparent"] == nil && json["tracestate"] == nil)
    }
}
