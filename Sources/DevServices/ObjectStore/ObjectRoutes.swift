import EmbeddedHTTP
import Foundation
import WireFormat

/// The object store's request handling: authorisation, then PUT/GET/HEAD/DELETE on the key in the path.
///
/// Runs on connection threads; shares only the thread-safe `ObjectStorage`.
struct ObjectRoutes: Sendable {
    /// The files and their index.
    let storage: ObjectStorage
    /// Checks signatures.
    let signer: URLSigner
    /// Public reads and the size limit.
    let configuration: LocalObjectStore.Configuration

    /// Handles one request head.
    func handle(_ head: HTTPRequestHead) -> HTTPRequestAction {
        guard let key = try? ObjectKey(String(head.path.dropFirst())) else {
            return answer(head, StorageErrorResponse.make(400, code: "InvalidObjectKey",
                                                          message: "The object key is not valid"))
        }
        if let refusal = authorize(head, key: key) {
            return answer(head, refusal)
        }
        switch head.method {
        case "PUT":
            if let maxSize = configuration.maxObjectSize, let length = head.contentLength, length > maxSize {
                return answer(head, StorageErrorResponse.make(
                    400, code: "EntityTooLarge", message: "Your proposed upload exceeds the maximum allowed size"))
            }
            guard let upload = ObjectUpload(storage: storage, key: key, head: head,
                                            maxSize: configuration.maxObjectSize)
            else {
                return answer(head, StorageErrorResponse.make(500, code: "InternalError",
                                                              message: "The object could not be created"))
            }
            return .readBody(upload)
        case "GET", "HEAD":
            guard let object = storage.object(key) else {
                return answer(head, StorageErrorResponse.make(404, code: "NoSuchKey",
                                                              message: "The specified key does not exist."))
            }
            return answer(head, ServerResponse(status: 200, headers: [
                HTTPHeader("Content-Type", object.contentType ?? "application/octet-stream"),
                HTTPHeader("ETag", "\"\(object.sha256)\""),
            ], body: .file(path: object.file.path)))
        case "DELETE":
            storage.remove(key)
            return answer(head, ServerResponse(status: 204))
        default:
            var refusal = StorageErrorResponse.make(405, code: "MethodNotAllowed",
                                                    message: "The specified method is not allowed")
            refusal.headers.append(HTTPHeader("Allow", "GET, HEAD, PUT, DELETE"))
            return answer(head, refusal)
        }
    }

    /// Nil when the request may proceed, else the 400/403 answer.
    func authorize(_ head: HTTPRequestHead, key: ObjectKey) -> ServerResponse? {
        let expiresText = head.queryValue("expires")
        let signature = head.queryValue("sig")
        if expiresText == nil, signature == nil {
            if configuration.publicRead, head.method == "GET" || head.method == "HEAD" { return nil }
            return StorageErrorResponse.make(403, code: "AccessDenied", message: "Request is not signed")
        }
        guard let expiresText, let expires = Int64(expiresText), let signature else {
            return StorageErrorResponse.make(400, code: "AuthorizationQueryParametersError",
                                             message: "Query-string authentication needs both expires and sig")
        }
        guard signer.isValid(signature, method: head.method, path: key.requestPath, expires: expires) else {
            return StorageErrorResponse.make(
                403, code: "SignatureDoesNotMatch",
                message: "The request signature we calculated does not match the signature you provided.")
        }
        guard Int64(Date().timeIntervalSince1970.rounded(.down)) <= expires else {
            return StorageErrorResponse.make(403, code: "AccessDenied", message: "Request has expired")
        }
        return nil
    }

    /// Records the answer, then sends it now when no body follows or the client awaits `100 Continue`; otherwise
    /// reads and discards the body first, so the client sees the answer rather than a reset under its upload.
    private func answer(_ head: HTTPRequestHead, _ response: ServerResponse) -> HTTPRequestAction {
        storage.record(method: head.method, path: head.path, status: response.status, traceparent: head.header("traceparent"))
        let hasBody = head.contentLength.map { $0 > 0 } ?? (head.header("transfer-encoding") != nil)
        let awaitsContinue = head.header("expect")?.lowercased() == "100-continue"
        return hasBody && !awaitsContinue ? .readBody(DiscardedBody(answering: response)) : .respond(response)
    }
}
