import Records
import UploadEngine

/// The filters and page of `attache batch list`, checked before anything is read.
public struct BatchListing: Sendable {
    public let receiver: String?
    public let state: String?
    public let limit: Int
    public let page: Int

    public init(receiver: String?, state: String?, limit: String?, page: String?) throws(RecordInputError) {
        if let state, state != "idle", state != "in-progress" { throw RecordInputError("--state must be idle or in-progress") }
        guard let limit = Int(limit ?? "20"), (1...10_000).contains(limit) else {
            throw RecordInputError("--limit must be a whole number from 1 to 10000")
        }
        guard let page = Int(page ?? "1"), page >= 1 else { throw RecordInputError("--page must be a whole number from 1") }
        self.receiver = receiver
        self.state = state
        self.limit = limit
        self.page = page
    }

    /// The views of this page (`views` already newest first), and the next page's number when there is one.
    public func page(of views: [BatchView]) -> (views: [BatchView], nextPage: Int?) {
        let chosen = views.filter { view in
            (receiver.map { view.receiver.id == $0 } ?? true) && (state.map { view.status == $0 } ?? true)
        }
        let start = (page - 1) * limit
        guard start < chosen.count else { return ([], nil) }
        let end = min(start + limit, chosen.count)
        return (Array(chosen[start..<end]), end < chosen.count ? page + 1 : nil)
    }
}
