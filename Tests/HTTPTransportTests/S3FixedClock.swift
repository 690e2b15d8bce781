import Foundation
import UploadEngine

/// A clock stopped at one instant, so signatures and expiry times are exact in tests.
struct S3FixedClock: EngineClock {
    var instant: Date
    func now() -> Date { instant }
    func sleep(until deadline: Date) async throws { try Task.checkCancellation() }
}
