import Foundation
import KafkaIO
import OperatorTools
import Records
import Testing

/// `attache dlq`: what a dead letter shows, which ones a selection takes, and what a replay produces.
@Suite struct DeadLetterTests {
    private static func letter(offset: Int64, at seconds: Double, key: String = "k", value: String = "not json",
                               error: String = "not JSON") -> DeadLetter {
        DeadLetter(partition: 0, offset: offset, time: Date(timeIntervalSince1970: seconds), key: Data(key.utf8), value: Data(value.utf8),
                   headers: [KafkaHeader("traceparent", "00-abc-def-01"), KafkaHeader("attache.source.topic", "attache.jobs"),
                             KafkaHeader("attache.source.partition", "2"), KafkaHeader("attache.source.offset", "41"),
                             KafkaHeader("attache.error", error)])
    }

    @Test func aListingShowsProvenanceErrorKeyAndAPreview() {
        let letter = Self.letter(offset: 5, at: 1_800_000_000, value: "line one\nline two \u{1}" + String(repeating: "x", count: 300))
        #expect(letter.source == "attache.jobs/2/41")
        #expect(letter.error == "not JSON")
        let listing = letter.listing
        #expect(listing.hasPrefix("0/5  2027-01-15T08:00:00.000Z  from attache.jobs/2/41  key k\n  error: not JSON\n  value: line one\\nline two \\x01xxx"))
        #expect(listing.hasSuffix("…"))
        #expect(DeadLetter(partition: 0, offset: 0, time: nil, key: Data([0xFF, 0x41]), value: nil, headers: []).keyText == "\\xFFA")
    }

    @Test func aReplayKeepsKeyValueAndHeadersButTheProvenance() {
        let record = Self.letter(offset: 1, at: 0, key: "batch-1", value: "{}").replay(to: "jobs")
        #expect(record.topic == "jobs")
        #expect(record.key == Data("batch-1".utf8))
        #expect(record.value == Data("{}".utf8))
        #expect(record.headers == [KafkaHeader("traceparent", "00-abc-def-01")])
        #expect(record.partition == nil, "the partitioner places it by its key, as the original was")
    }

    @Test func aSelectionFiltersBySinceAndTextAndLimitsTheOldest() throws {
        let letters = [Self.letter(offset: 2, at: 3000, key: "late"), Self.letter(offset: 0, at: 1000, key: "early"),
                       Self.letter(offset: 1, at: 2000, key: "middle", error: "unknown kind 'upload2'")]
        let now = Date(timeIntervalSince1970: 3600)
        #expect(try DeadLetterSelection(since: nil, match: nil, limit: nil).choose(from: letters).map(\.keyText) == ["early", "middle", "late"])
        #expect(try DeadLetterSelection(since: "30m", match: nil, limit: nil, now: now).choose(from: letters).map(\.keyText) == ["middle", "late"])
        #expect(try DeadLetterSelection(since: "1970-01-01T00:40:00Z", match: nil, limit: nil).choose(from: letters).map(\.keyText) == ["late"])
        #expect(try DeadLetterSelection(since: nil, match: "UPLOAD2", limit: nil).choose(from: letters).map(\.keyText) == ["middle"])
        #expect(try DeadLetterSelection(since: nil, match: "attache.jobs/2", limit: "2").choose(from: letters).map(\.keyText) == ["early", "middle"])
        #expect(throws: RecordInputError.self) { try DeadLetterSelection(since: "yesterday", match: nil, limit: nil) }
        #expect(throws: RecordInputError("--limit must be a whole number from 1")) { try DeadLetterSelection(since: nil, match: nil, limit: "0") }
    }
}
