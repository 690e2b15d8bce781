/// How far the dashboard has read: records folded per topic, and whether it caught up with the topics' ends as they
/// were when it started (until then the page says it is still loading history).
public struct FeedProgress: Sendable, Hashable {
    public var events = 0
    public var jobs = 0
    public var deadLetters = 0
    public var caughtUp = false

    public init() {}
}
