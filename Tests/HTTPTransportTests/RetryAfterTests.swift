import Foundation
import Testing

@testable import HTTPTransport

@Suite struct RetryAfterTests {
    static let now = Date(timeIntervalSince1970: 1_784_000_000)

    @Test(arguments: [("120", Duration.seconds(120)), ("0", .seconds(0)), (" 5 ", .seconds(5))])
    func delaySecondsAreReadAsIs(value: String, expected: Duration) {
        #expect(RetryAfter.parse(value, now: Self.now) == expected)
    }

    @Test func anHTTPDateIsMeasuredFromNow() throws {
        let now = try Date("2026-11-01T10:00:00Z", strategy: .iso8601)
        #expect(RetryAfter.parse("Sun, 01 Nov 2026 10:01:30 GMT", now: now) == .seconds(90))
        #expect(RetryAfter.parse("Sunday, 01-Nov-26 10:00:10 GMT", now: now) == .seconds(10))
        #expect(RetryAfter.parse("Sun Nov  1 10:00:20 2026", now: now) == .seconds(20))
    }

    @Test func aDateInThePastMeansNoWait() throws {
        let now = try Date("2026-11-01T10:00:00Z", strategy: .iso8601)
        #expect(RetryAfter.parse("Sun, 01 Nov 2026 09:00:00 GMT", now: now) == .zero)
    }

    @Test(arguments: ["", "soon", "-5", "1.5", "Sun, 99 Foo 2026"])
    func unreadableValuesGiveNothing(value: String) {
        #expect(RetryAfter.parse(value, now: Self.now) == nil)
    }
}
