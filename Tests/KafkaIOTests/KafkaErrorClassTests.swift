import Testing
@testable import KafkaIO

/// Which client errors are the weather of a running cluster, and which need a person.
@Suite struct KafkaErrorClassTests {
    @Test(arguments: [-195 /* _TRANSPORT */, -187 /* _ALL_BROKERS_DOWN */, 22 /* ILLEGAL_GENERATION */,
                      25 /* UNKNOWN_MEMBER_ID */, 15 /* COORDINATOR_NOT_AVAILABLE */, 16 /* NOT_COORDINATOR */,
                      27 /* REBALANCE_IN_PROGRESS */, 6 /* NOT_LEADER_FOR_PARTITION */, 7 /* REQUEST_TIMED_OUT */])
    func errorsTheClientRecoversFromAreTransient(code: Int32) {
        #expect(KafkaError(libraryCode: code).isTransient)
    }

    @Test(arguments: [-192 /* _MSG_TIMED_OUT */, 10 /* MSG_SIZE_TOO_LARGE */, 29 /* TOPIC_AUTHORIZATION_FAILED */,
                      -150 /* _FATAL */])
    func lostMessagesAndRefusalsAreNot(code: Int32) {
        #expect(!KafkaError(libraryCode: code).isTransient)
    }

    @Test func fatalAndOwnErrorsAreNotTransientButARevokeTimeoutIs() {
        var fatal = KafkaError(libraryCode: -195)
        fatal.isFatal = true
        #expect(!fatal.isTransient)
        #expect(!KafkaError(.closed, "closed").isTransient)
        #expect(KafkaError(.revokeTimedOut, "slow").isTransient)
    }
}
