import Foundation
import UploadEngine
import WireFormat

/// Presigns uploads straight to an S3 bucket with SigV4 query URLs (`presign.mode = s3`).
///
/// Each file gets a `PUT` URL for the key `{prefix}/{batchId}/{fileId}/{safe name}` that signs `content-type` and,
/// when the staged file's SHA-256 is known, `x-amz-checksum-sha256`, so storage refuses bytes that differ.
/// Files outside the policy are refused. Signing is local and never fails in transport.
///
/// Signing is all it does: `S3Storage` pairs it with an `HTTPClient` to upload (multipart above a threshold) and
/// to delete removed objects. Used alone as a `Presigner`, its `deleteObject` is the protocol's no-op.
public struct S3Presigner: Presigner {
    /// The validated settings.
    public let configuration: S3PresignerConfiguration
    /// Where signing times come from.
    let clock: any EngineClock
    /// The signer for the configured key and region, service `s3`.
    let signer: SigV4Signer
    /// The bucket's address.
    let endpoint: S3BucketEndpoint

    /// A presigner for `configuration`, signing at the times `clock` tells.
    /// - Throws: `S3Error` when the configuration does not validate.
    public init(configuration: S3PresignerConfiguration, clock: any EngineClock = SystemClock()) throws {
        try configuration.validate()
        self.configuration = configuration
        self.clock = clock
        self.signer = SigV4Signer(credentials: configuration.credentials, region: configuration.region, service: "s3")
        self.endpoint = try S3BucketEndpoint(configuration: configuration)
    }

    /// Signs an upload for each file the policy allows, all at the same instant, and refuses the others.
    /// Never throws in practice: signing is local and the configuration was validated at `init`.
    public func presign(_ files: [PresignFile], in context: BatchContext) async throws -> [String: PresignOutcome] {
        let now = clock.now()
        var outcomes: [String: PresignOutcome] = [:]
        for file in files {
            outcomes[file.fileId] = try outcome(for: file, batchId: context.batchId, at: now)
        }
        return outcomes
    }

    /// The key of a file of a batch (deterministic: see `S3ObjectKey`).
    public func objectKey(batchId: String, fileId: String, name: String) -> String {
        S3ObjectKey.make(prefix: configuration.keyPrefix, batchId: batchId, fileId: fileId, name: name)
    }

    /// The key a URL made by this presigner addresses (an upload target's, say), or nil for a URL of another
    /// endpoint or bucket.
    public func key(ofURL url: String) -> String? {
        endpoint.key(inURL: url)
    }

    /// The object's own URL, without a query.
    public func objectURL(key: String) -> String {
        endpoint.objectURL(key: key)
    }

    /// The URL the file is reachable at once uploaded: under `publicBaseURL` if configured, else `objectURL`.
    public func fileURL(key: String) -> String {
        fileURL(key: key, objectURL: objectURL(key: key))
    }

    /// `fileURL` with the object's URL given when it is already at hand (a presigned URL up to its query).
    private func fileURL(key: String, objectURL: @autoclosure () -> String) -> String {
        guard var base = configuration.publicBaseURL else { return objectURL() }
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/" + SigV4Encoding.uriEncode(key, encodeSlash: false)
    }

    /// A presigned `PUT` of one file to `key`, signed at `date`.
    ///
    /// The headers to send are `content-type` (the file's type, `application/octet-stream` if it has none),
    /// when `sha256Hex` is given `x-amz-checksum-sha256` with `x-amz-sdk-checksum-algorithm: SHA256`, and the
    /// configured encryption's (``S3ServerSideEncryption``).
    /// - Throws: `S3Error` `.invalidRequest` for a `sha256Hex` that is not 64 hex digits.
    public func presignedUpload(key: String, mimeType: String, sha256Hex: String?, at date: Date) throws
        -> UploadTarget
    {
        var checksum: String?
        if let sha256Hex {
            guard let base64 = S3Checksum.base64(sha256Hex: sha256Hex) else {
                throw S3Error(.invalidRequest, "a SHA-256 digest must be 64 hex digits; got \"\(sha256Hex)\"")
            }
            checksum = base64
        }
        return try presignedUpload(key: key, mimeType: mimeType, checksum: checksum, at: date)
    }

    /// A presigned `PUT` with the checksum header's value (base64) already made.
    private func presignedUpload(key: String, mimeType: String, checksum: String?, at date: Date) throws
        -> UploadTarget
    {
        var headers = [HTTPHeader("content-type", mimeType.isEmpty ? "application/octet-stream" : mimeType)]
        if let checksum {
            headers.append(HTTPHeader(S3Checksum.sha256Header, checksum))
            headers.append(HTTPHeader(S3Checksum.algorithmHeader, "SHA256"))
        }
        headers += configuration.serverSideEncryption?.headers ?? []
        let request = endpoint.request(
            method: "PUT", key: key, headers: headers, payloadHash: SigV4Request.unsignedPayload)
        let signed = try signer.presign(request, lifetime: configuration.urlLifetimeSeconds, at: date)
        // The object's URL is the signed one up to its query: the key is encoded once, for both.
        return UploadTarget(
            uploadURL: signed.url, method: "PUT", headers: signed.headers,
            fileURL: fileURL(key: key, objectURL: signed.redactedURL), expiresAt: signed.expiresAt)
    }

    private func outcome(for file: PresignFile, batchId: String, at date: Date) throws -> PresignOutcome {
        if let refusal = configuration.policy.refusal(for: file) {
            return .refused(refusal)
        }
        let key = objectKey(batchId: batchId, fileId: file.fileId, name: file.name)
        if key.utf8.count > S3ObjectKey.maximumKeyLength {
            return .refused(
                UploadError(
                    .invalidFileObject,
                    "the object key would be \(key.utf8.count) bytes; S3 allows \(S3ObjectKey.maximumKeyLength)",
                    retryable: false))
        }
        var checksum: String?
        if !file.sha256.isEmpty {
            guard let base64 = S3Checksum.base64(sha256Hex: file.sha256) else {
                return .refused(
                    UploadError(
                        .invalidFileObject, "the file's SHA-256 is not a 64-digit hex digest: \"\(file.sha256)\"",
                        retryable: false))
            }
            checksum = base64
        }
        return .target(try presignedUpload(key: key, mimeType: file.mimeType, checksum: checksum, at: date))
    }
}
