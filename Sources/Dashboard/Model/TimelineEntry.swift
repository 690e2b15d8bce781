/// One line of a batch's event timeline on its page.
///
/// Progress is not listed report by report: only the first report of an attempt ("upload started") is, so a large
/// file does not push everything else out of the bounded timeline.
public struct TimelineEntry: Sendable, Hashable {
    /// Milliseconds since 1970 (the event's `time`, else when it was read).
    public var time: Int64
    /// The event type without the `attache.` prefix (`file.uploaded`), or `job` / `control.retry` for records of the
    /// jobs topic.
    public var kind: String
    public var fileId: String?
    /// What happened, in a few words (an error code and message, a message type, a percentage).
    public var detail: String
    /// The worker that published it (`source`), when it came from one.
    public var source: String?
    /// The CloudEvents id, by which a repeat of the same event is recognised and skipped.
    public var eventId: String?

    public init(time: Int64, kind: String, fileId: String? = nil, detail: String = "", source: String? = nil, eventId: String? = nil) {
        self.time = time
        self.kind = kind
        self.fileId = fileId
        self.detail = detail
        self.source = source
        self.eventId = eventId
    }
}
