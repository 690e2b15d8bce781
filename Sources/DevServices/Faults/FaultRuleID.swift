/// Identifies a rule added to a `FaultPlan`, for removing it.
public struct FaultRuleID: Sendable, Hashable {
    /// The rule's number within its plan.
    let value: Int
}
