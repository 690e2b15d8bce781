import EmbeddedHTTP

/// The dev services' endpoints each take `POST` on one path; anything else is refused before its body is read.
enum PostOnlyRoute {
    /// The answer to a request that is not `POST path` — 404 for another path, 405 with `Allow` for another method —
    /// or nil when it is one.
    static func refusal(of head: HTTPRequestHead, path: String) -> HTTPRequestAction? {
        guard head.path == path else {
            return .readBody(DiscardedBody(answering: JSONResponse.error(404, code: "ERR_NOT_FOUND", message: "no such endpoint")))
        }
        guard head.method == "POST" else {
            var refusal = JSONResponse.error(405, code: "ERR_METHOD_NOT_ALLOWED", message: "use POST")
            refusal.headers.append(.init("Allow", "POST"))
            return .readBody(DiscardedBody(answering: refusal))
        }
        return nil
    }
}
