/// How much the dashboard keeps, so that its memory has a bound whatever the topics hold (DESIGN §10: only the
/// newest `dashboard.maxBatches` batches).
public struct DashboardLimits: Sendable, Hashable {
    /// Batches kept (`dashboard.maxBatches`); beyond it the batch whose last event is oldest is forgotten.
    public var maxBatches: Int
    /// Files tracked per batch; later ones are only counted (a batch holds `limits.fileCountMax` live files, but
    /// rejected ones pile up without a bound).
    public var filesPerBatch = 200
    /// Timeline entries kept per batch, the newest.
    public var timelinePerBatch = 100
    /// Messages kept per batch, the newest.
    public var messagesPerBatch = 50
    /// Failures and rejections listed as the latest.
    public var latestProblems = 50
    /// Distinct error codes counted; a code beyond them counts as `other` (servers may invent codes).
    public var errorCodes = 64
    /// Dead letters listed, the newest.
    public var deadLetters = 200
    /// Workers (`source`s) remembered; beyond it the one heard from least recently is forgotten.
    public var workers = 256

    public init(maxBatches: Int = 50_000) {
        self.maxBatches = max(1, maxBatches)
    }
}
