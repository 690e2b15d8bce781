import Testing
@testable import Worker

@Suite struct LogThrottleTests {
    @Test func aBurstOfOneKeyIsOneLineThenACountOfTheRest() {
        let throttle = LogThrottle(interval: .seconds(10))
        let start = ContinuousClock.now
        #expect(throttle.admit("consumer _TRANSPORT", now: start) == (true, 0))
        for second in 1...9 {
            #expect(throttle.admit("consumer _TRANSPORT", now: start + .seconds(second)).admitted == false)
        }
        #expect(throttle.admit("consumer ILLEGAL_GENERATION", now: start + .seconds(1)) == (true, 0), "keys are throttled apart")
        #expect(throttle.admit("consumer _TRANSPORT", now: start + .seconds(10)) == (true, 9), "the next window says how many were held back")
        #expect(throttle.admit("consumer _TRANSPORT", now: start + .seconds(25)) == (true, 0))
    }
}
