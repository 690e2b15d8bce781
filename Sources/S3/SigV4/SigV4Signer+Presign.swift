import Foundation
import WireFormat

extension SigV4Signer {
    /// Signs `request` into its URL (query-string authentication), valid `lifetime` seconds from `date`.
    ///
    /// The URL carries `X-Amz-Algorithm`, `X-Amz-Credential`, `X-Amz-Date`, `X-Amz-Expires`,
    /// `X-Amz-SignedHeaders`, `X-Amz-Security-Token` (temporary credentials) and `X-Amz-Signature`. Every header of
    /// `request` is signed, so the caller must send each of them, unchanged, with the request.
    /// - Throws: `S3Error` `.urlLifetimeOutOfRange` unless 1 ≤ `lifetime` ≤ 604800 (7 days).
    public func presign(_ request: SigV4Request, lifetime: Int, at date: Date) throws -> SigV4SignedRequest {
        guard (1...Self.maximumPresignLifetime).contains(lifetime) else {
            throw S3Error(
                .urlLifetimeOutOfRange,
                "a presigned URL must live between 1 and \(Self.maximumPresignLifetime) seconds (7 days); asked for \(lifetime)")
        }
        let time = SigV4Timestamp(date)
        // Each canonical part is made once and used for both the signature and the URL.
        let headers = Self.canonicalHeaders(request.headersWithHost)
        var query = request.query
        query.append(SigV4QueryItem("X-Amz-Algorithm", Self.algorithm))
        let scope = credentialScope(time)
        query.append(SigV4QueryItem("X-Amz-Credential", credentials.accessKeyId + "/" + scope))
        query.append(SigV4QueryItem("X-Amz-Date", time.amzDate))
        query.append(SigV4QueryItem("X-Amz-Expires", String(lifetime)))
        query.append(SigV4QueryItem("X-Amz-SignedHeaders", headers.signedHeaders))
        if let token = credentials.sessionToken {
            query.append(SigV4QueryItem("X-Amz-Security-Token", token))
        }
        let path = request.encodedPath
        let canonicalQuery = Self.canonicalQuery(query)
        let canonical = Self.canonicalRequest(request, encodedPath: path, canonicalQuery: canonicalQuery, headers: headers)
        let signature = signature(stringToSign: Self.stringToSign(canonicalRequest: canonical, at: time, scope: scope), at: time)
        let url = request.url(encodedPath: path, canonicalQuery: canonicalQuery, signature: signature)
        return SigV4SignedRequest(
            method: request.method.uppercased(), url: url, headers: request.headers.filter { !$0.name.equalsIgnoringASCIICase("host") },
            signature: signature, expiresAt: time.date.addingTimeInterval(TimeInterval(lifetime)))
    }
}
