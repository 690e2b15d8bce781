import Testing
@testable import KafkaIO

/// Reading the group's join state out of librdkafka's statistics document.
@Suite struct GroupJoinStateTests {
    private func parse(_ json: String) -> String? {
        Array(json.utf8).withUnsafeBufferPointer { GroupJoinState.parse($0) }
    }

    @Test func theJoinStateIsReadWhateverTheSpacing() {
        #expect(parse(#"{"name": "c#consumer-1", "cgrp": { "state": "up", "stateage": 12, "join_state": "steady", "rebalance_cnt": 1 }}"#) == "steady")
        #expect(parse(#"{"cgrp":{"state":"up","join_state":"wait-join"}}"#) == "wait-join")
        #expect(parse(#"{"cgrp": {"join_state" :  "wait-sync" }}"#) == "wait-sync")
    }

    @Test func theKeyIsFoundAfterPartialMatchesAndAtTheEndOfALargeDocument() {
        let topics = String(repeating: #"{"partition": 3, "join_stat": 1, "\"join_": "x"}, "#, count: 2_000)
        #expect(parse(#"{"topics": [\#(topics)], "cgrp": {"join_state": "init"}}"#) == "init")
        #expect(parse(#"""join_state""steady""#) == "steady", "the key at the very start")
        #expect(parse(#""join_state""#) == nil, "the key at the very end, no value")
    }

    @Test func aDocumentWithoutOneOrCutShortSaysNothing() {
        #expect(parse(#"{"name": "p#producer-1", "brokers": {}}"#) == nil)
        #expect(parse(#"{"cgrp": {"join_state": "stea"#) == nil)
        #expect(parse(#"{"cgrp": {"join_state": 3}}"#) == nil)
        #expect(parse("") == nil)
    }

    @Test func aRejoiningMemberHoldsItsPeriodicCommitUntilTheStatisticsSaySteady() {
        var state = ConsumerShared.State()
        #expect(!state.isRejoining(at: .now), "no statistics yet: commits as before")
        state.joinSteady = false
        #expect(state.isRejoining(at: .now))
        state.joinSteady = true
        #expect(!state.isRejoining(at: .now))
    }
}
