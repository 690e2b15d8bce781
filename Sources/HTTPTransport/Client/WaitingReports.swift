/// How often an upload that waits — for a rate cap, for storage's answer — says so to a stall clock, so that the
/// clock never takes waiting for a stall (DESIGN §4).
public enum WaitingReports {
    /// A third of `stallTimeout` (a report may land just after the clock looked, and the next is still in time), at
    /// most `longest`; `longest` without a stall timeout.
    public static func interval(for stallTimeout: Duration?, atMost longest: Duration) -> Duration {
        stallTimeout.map { min(longest, $0 / 3) } ?? longest
    }
}
