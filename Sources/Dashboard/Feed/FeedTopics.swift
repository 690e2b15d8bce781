/// The topics the dashboard reads, and what each is for: the events (everything it shows), the jobs (what only a
/// job says — receiver, file names and sizes — and the controls sent to a batch) and the dead letters.
public struct FeedTopics: Sendable, Hashable {
    public var events: String
    public var jobs: String
    public var deadLetters: String

    public init(events: String, jobs: String, deadLetters: String) {
        self.events = events
        self.jobs = jobs
        self.deadLetters = deadLetters
    }

    var all: [String] { [events, jobs, deadLetters] }
}
