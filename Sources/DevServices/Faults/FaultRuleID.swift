/// Identifies a rule added to a `FaultPlan`, for removing it.
public struct FaultRuleID: Sendable, Hashable {
    let value: Int
}
