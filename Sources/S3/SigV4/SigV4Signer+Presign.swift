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
        if let shape = presignShapes.shape(of: request, scope: signingScope(time), lifetime: lifetime, signer: self,
                                           time: time) {
            return presign(request, shaped: shape, lifetime: lifetime, at: time)
        }
        return presignPiecewise(request, lifetime: lifetime, at: time)
    }

    /// `presign` from the request's parts, each encoded, sorted and joined here: for any request, and the text a
    /// kept shape is made from.
    func presignPiecewise(_ request: SigV4Request, lifetime: Int, at time: SigV4Timestamp) -> SigV4SignedRequest {
        // Each canonical part is made once and used for both the signature and the URL.
        let headers = Self.canonicalHeaders(request.headersWithHost)
        let scope = credentialScope(time)
        let query = request.query + authenticationQuery(scope: scope, signedHeaders: headers.signedHeaders, lifetime: lifetime, at: time)
        let path = request.encodedPath
        let canonicalQuery = Self.canonicalQuery(query)
        let canonical = Self.canonicalRequest(request, encodedPath: path, canonicalQuery: canonicalQuery, headers: headers)
        let signature = signature(stringToSign: Self.stringToSign(canonicalRequest: canonical, at: time, scope: scope), at: time)
        let url = request.url(encodedPath: path, canonicalQuery: canonicalQuery, signature: signature)
        return SigV4SignedRequest(
            method: request.method.uppercased(), url: url, headers: request.headers.filter { !$0.name.equalsIgnoringASCIICase("host") },
            signature: signature, expiresAt: time.date.addingTimeInterval(TimeInterval(lifetime)))
    }

    /// The parameters query-string authentication adds to a URL, but its signature.
    func authenticationQuery(scope: String, signedHeaders: String, lifetime: Int, at time: SigV4Timestamp)
        -> [SigV4QueryItem]
    {
        var query = [
            SigV4QueryItem("X-Amz-Algorithm", Self.algorithm),
            SigV4QueryItem("X-Amz-Credential", credentials.accessKeyId + "/" + scope),
            SigV4QueryItem("X-Amz-Date", time.amzDate),
            SigV4QueryItem("X-Amz-Expires", String(lifetime)),
            SigV4QueryItem("X-Amz-SignedHeaders", signedHeaders),
        ]
        if let token = credentials.sessionToken {
            query.append(SigV4QueryItem("X-Amz-Security-Token", token))
        }
        return query
    }

    /// `presign` for a request of a kept shape: the same text as the general path writes, put together from the
    /// shape's parts in one buffer, which then holds the string to sign.
    private func presign(_ request: SigV4Request, shaped shape: SigV4PresignShape, lifetime: Int,
                         at time: SigV4Timestamp) -> SigV4SignedRequest {
        let method = request.method.uppercased()
        let path = request.encodedPath
        var text: [UInt8] = []
        text.reserveCapacity(max(shape.canonicalRequestCapacity(request, encodedPath: path), 160 + shape.scope.count))
        shape.writeCanonicalRequest(request, method: method, encodedPath: path, time: time, into: &text)
        var digest = SigV4Digest.Bytes()
        text.withUnsafeBytes { SigV4Digest.sha256($0, into: &digest) }
        text.removeAll(keepingCapacity: true)
        text.append(contentsOf: Self.algorithm.utf8)
        text.append(UInt8(ascii: "\n"))
        text.append(contentsOf: time.amzDate.utf8)
        text.append(UInt8(ascii: "\n"))
        text.append(contentsOf: shape.scope)
        text.append(UInt8(ascii: "\n"))
        SigV4Digest.appendHex(of: digest, to: &text)
        var mac = SigV4Digest.Bytes()
        text.withUnsafeBytes { keyed(at: time).mac.authenticate($0, into: &mac) }
        let signature = SigV4Digest.hex(of: mac)
        text.removeAll(keepingCapacity: true)
        shape.writeQuery(time: time, into: &text)
        let query = String(decoding: text, as: UTF8.self)
        return SigV4SignedRequest(
            method: method, url: request.url(encodedPath: path, canonicalQuery: query, signature: signature),
            headers: request.headers, signature: signature, expiresAt: time.date.addingTimeInterval(TimeInterval(lifetime)))
    }
}
