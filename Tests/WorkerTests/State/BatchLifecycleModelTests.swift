import Foundation
import Testing

/// Seeded schedules against the changelog writer: every seed is one interleaving of changes, clears, expiries,
/// deliveries in any order the broker allows, full queues, a refusing store, held events, revokes, lost partitions
/// and new assignments, with §4.1's rules checked after every step. `ATTACHE_LIFECYCLE_SEEDS` runs more
/// (`ops/fuzz lifecycle`); `ATTACHE_LIFECYCLE_FIRST_SEED` starts elsewhere, to replay one seed.
@Suite struct BatchLifecycleModelTests {
    private static func setting(_ name: String, _ fallback: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment[name].flatMap(UInt64.init) ?? fallback
    }

    @Test func noScheduleLosesARecordOrBringsBackAnOlderBatch() async throws {
        let first = Self.setting("ATTACHE_LIFECYCLE_FIRST_SEED", 0)
        let count = Self.setting("ATTACHE_LIFECYCLE_SEEDS", 1_000)
        var failures = 0
        for seed in first..<(first + count) {
            do {
                try await LifecycleModel(seed: seed).run(steps: 40)
            } catch let violation as LifecycleModel.Violation {
                Issue.record("seed \(seed): \(violation)")
                failures += 1
                if failures == 3 { return }
            }
        }
    }
}
