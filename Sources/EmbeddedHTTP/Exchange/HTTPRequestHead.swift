import Foundation
import WireFormat

/// What a handler learns about a request before its body: method, path, query and headers.
public struct HTTPRequestHead: Sendable, Hashable {
    /// The request method, as sent (`GET`, `PUT`, …).
    public var method: String
    /// The URL path, percent-decoded, without the query.
    public var path: String
    /// The query arguments in request order, percent-decoded (`+` read as a space).
    public var query: [HTTPQueryItem]
    /// The request headers in request order.
    public var headers: [HTTPHeader]

    /// Creates a request head.
    public init(method: String, path: String, query: [HTTPQueryItem] = [], headers: [HTTPHeader] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
    }

    /// The first header with this name (case-insensitive), if any.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// The value of the first query argument with this name, if present with a value.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// The declared `Content-Length`, if present and numeric.
    public var contentLength: Int64? {
        header("content-length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }
}
