import Foundation
import WireFormat

extension S3Presigner {
    /// CreateMultipartUpload for `key` (`POST /key?uploads`), signed with an `Authorization` header. Parse the
    /// answer with `S3InitiateMultipartUploadResult(status:body:)`.
    ///
    /// With `sha256Checksums`, S3 is told (`x-amz-checksum-algorithm: SHA256`) that every part will carry its
    /// SHA-256 and the completion will list them; parts and completion must then do so.
    public func createMultipartUploadRequest(key: String, mimeType: String, sha256Checksums: Bool = false)
        -> SigV4SignedRequest
    {
        var headers = [HTTPHeader("content-type", mimeType.isEmpty ? "application/octet-stream" : mimeType)]
        if sha256Checksums {
            headers.append(HTTPHeader("x-amz-checksum-algorithm", "SHA256"))
        }
        // The whole object's encryption is set here; its parts follow it.
        headers += configuration.serverSideEncryption?.headers ?? []
        return signedRequest(method: "POST", key: key, query: [SigV4QueryItem("uploads")], headers: headers)
    }

    /// A presigned UploadPart (`PUT /key?partNumber=N&uploadId=…`), valid for the configured lifetime from now.
    /// The answer's `ETag` header goes into the completion's `S3CompletedPart`.
    ///
    /// With `sha256Base64` (the part's own digest), `x-amz-checksum-sha256` and `x-amz-sdk-checksum-algorithm`
    /// are signed and must be sent.
    /// - Throws: `S3Error` `.invalidRequest` for a part number outside 1…10,000 or an empty upload id.
    public func presignedUploadPart(key: String, uploadId: String, partNumber: Int, sha256Base64: String? = nil)
        throws -> SigV4SignedRequest
    {
        guard (1...S3MultipartPlan.maximumPartCount).contains(partNumber) else {
            throw S3Error(.invalidRequest, "part numbers run from 1 to 10000; got \(partNumber)")
        }
        guard !uploadId.isEmpty else {
            throw S3Error(.invalidRequest, "an UploadPart needs the upload id CreateMultipartUpload answered")
        }
        var headers: [HTTPHeader] = []
        if let sha256Base64 {
            headers.append(HTTPHeader(S3Checksum.sha256Header, sha256Base64))
            headers.append(HTTPHeader(S3Checksum.algorithmHeader, "SHA256"))
        }
        return try presigned(
            method: "PUT", key: key,
            query: [SigV4QueryItem("partNumber", String(partNumber)), SigV4QueryItem("uploadId", uploadId)],
            headers: headers)
    }

    /// CompleteMultipartUpload (`POST /key?uploadId=…` with the part list), signed with an `Authorization` header.
    /// Parse the answer with `S3CompleteMultipartUploadResult(status:body:)`: a 200 can still carry an error.
    public func completeMultipartUploadRequest(key: String, uploadId: String, parts: [S3CompletedPart])
        -> SigV4SignedRequest
    {
        signedRequest(
            method: "POST", key: key, query: [SigV4QueryItem("uploadId", uploadId)],
            headers: [HTTPHeader("content-type", "application/xml")],
            body: S3CompleteMultipartUpload(parts: parts).xml)
    }

    /// AbortMultipartUpload (`DELETE /key?uploadId=…`), signed with an `Authorization` header: frees the parts of
    /// an upload that will not complete. S3 answers 204.
    public func abortMultipartUploadRequest(key: String, uploadId: String) -> SigV4SignedRequest {
        signedRequest(method: "DELETE", key: key, query: [SigV4QueryItem("uploadId", uploadId)])
    }

    /// ListMultipartUploads (`GET /?uploads&prefix=…`), signed with an `Authorization` header: one page (up to 1,000)
    /// of the incomplete uploads under `prefix`, from the markers of the page before.
    public func listMultipartUploadsRequest(prefix: String, keyMarker: String? = nil, uploadIdMarker: String? = nil)
        -> SigV4SignedRequest
    {
        var query = [SigV4QueryItem("uploads"), SigV4QueryItem("prefix", prefix)]
        if let keyMarker { query.append(SigV4QueryItem("key-marker", keyMarker)) }
        if let uploadIdMarker, !uploadIdMarker.isEmpty { query.append(SigV4QueryItem("upload-id-marker", uploadIdMarker)) }
        return signedRequest(method: "GET", key: nil, query: query)
    }

    /// ListParts (`GET /key?uploadId=…&max-parts=…`), signed with an `Authorization` header: whether storage still
    /// has an upload (404 `NoSuchUpload` when it was aborted or completed), and which parts it holds.
    public func listPartsRequest(key: String, uploadId: String, maxParts: Int = 1000) -> SigV4SignedRequest {
        signedRequest(
            method: "GET", key: key,
            query: [SigV4QueryItem("uploadId", uploadId), SigV4QueryItem("max-parts", String(maxParts))])
    }
}
