import Foundation
import WireFormat

extension S3Presigner {
    /// A presigned `GET` of `key`, valid for the configured lifetime from now.
    public func presignedGet(key: String) throws -> SigV4SignedRequest {
        try presigned(method: "GET", key: key)
    }

    /// A presigned `DELETE` of `key` (S3 DeleteObject), valid for the configured lifetime from now: how a removed
    /// upload's object is deleted. The caller performs it; S3 answers 204 whether or not the object existed.
    public func presignedDelete(key: String) throws -> SigV4SignedRequest {
        try presigned(method: "DELETE", key: key)
    }

    /// A request on the bucket (`key` nil) or an object, signed now with an `Authorization` header.
    ///
    /// Signs `x-amz-content-sha256` with the body's hash, as S3 requires, besides `headers`, `host` and
    /// `x-amz-date`. The signature is valid for about 15 minutes (S3's clock-skew window): send it at once.
    public func signedRequest(
        method: String, key: String?, query: [SigV4QueryItem] = [], headers: [HTTPHeader] = [], body: Data = Data()
    ) -> SigV4SignedRequest {
        let payloadHash = SigV4Digest.hex(SigV4Digest.sha256(body))
        let request = endpoint.request(
            method: method, key: key, query: query,
            headers: headers + [HTTPHeader("x-amz-content-sha256", payloadHash)], payloadHash: payloadHash)
        return signer.authorize(request, body: body, at: clock.now())
    }

    /// A presigned request signing `headers` (which must then be sent), valid for the configured lifetime from now.
    func presigned(method: String, key: String, query: [SigV4QueryItem] = [], headers: [HTTPHeader] = []) throws
        -> SigV4SignedRequest
    {
        let request = endpoint.request(
            method: method, key: key, query: query, headers: headers, payloadHash: SigV4Request.unsignedPayload)
        return try signer.presign(request, lifetime: configuration.urlLifetimeSeconds, at: clock.now())
    }
}
