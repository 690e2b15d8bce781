import Dashboard
import Testing

/// The `text/event-stream` encoding.
@Suite struct ServerSentEventTests {
    private func text(_ event: ServerSentEvent) -> String { String(decoding: event.encoded, as: UTF8.self) }

    @Test func aJSONPayloadIsOneDataLineAfterItsEventAndId() {
        #expect(text(ServerSentEvent(event: "delta", id: "7", data: Array(#"{"a":1}"#.utf8))) == "event: delta\nid: 7\ndata: {\"a\":1}\n\n")
    }

    @Test func aPayloadWithLineBreaksIsSplitIntoDataLines() {
        #expect(text(ServerSentEvent(data: Array("one\ntwo\r\nthree\rfour".utf8))) == "data: one\ndata: two\ndata: three\ndata: four\n\n")
        #expect(text(ServerSentEvent(data: Array("end\n".utf8))) == "data: end\ndata: \n\n", "a trailing break keeps its empty line")
    }

    @Test func lineBreaksCannotAddFieldsThroughTheEventNameOrId() {
        #expect(text(ServerSentEvent(event: "snap\nshot", id: "1\r\ndata: x", data: [])) == "event: snapshot\nid: 1data: x\ndata: \n\n")
    }

    @Test func retryAndCommentLines() {
        #expect(String(decoding: ServerSentEvent.retry(milliseconds: 1000), as: UTF8.self) == "retry: 1000\n\n")
        #expect(String(decoding: ServerSentEvent.comment("keep\nalive"), as: UTF8.self) == ": keepalive\n\n")
    }
}
