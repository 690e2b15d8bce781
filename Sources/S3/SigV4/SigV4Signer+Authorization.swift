import Foundation
import WireFormat

extension SigV4Signer {
    /// Signs `request` with an `Authorization` header, at `date`.
    ///
    /// Adds `x-amz-date` and, for temporary credentials, `x-amz-security-token`; signs every header of the
    /// request plus `host`. S3 also wants `x-amz-content-sha256`: callers signing for S3 put it in
    /// `request.headers` (see `S3Presigner.signedRequest`). The result's headers are the request's own followed by
    /// the added ones and `Authorization`; `body` is attached as given, unchecked against `payloadHash`.
    public func authorize(_ request: SigV4Request, body: Data = Data(), at date: Date) -> SigV4SignedRequest {
        let time = SigV4Timestamp(date)
        var added = [HTTPHeader("x-amz-date", time.amzDate)]
        if let token = credentials.sessionToken {
            added.append(HTTPHeader("x-amz-security-token", token))
        }
        let headers = request.headersWithHost + added
        let canonical = canonicalRequest(request, query: request.query, headers: headers)
        let signature = signature(stringToSign: stringToSign(canonicalRequest: canonical, at: time), at: time)
        let authorization =
            "\(Self.algorithm) Credential=\(credentials.accessKeyId)/\(credentialScope(time)), "
            + "SignedHeaders=\(Self.canonicalHeaders(headers).signedHeaders), Signature=\(signature)"
        let sent = (request.headers + added).filter { !$0.name.equalsIgnoringASCIICase("host") }
        return SigV4SignedRequest(
            method: request.method.uppercased(), url: request.url(canonicalQuery: Self.canonicalQuery(request.query)),
            headers: sent + [HTTPHeader("Authorization", authorization)], body: body, signature: signature)
    }
}
