import Foundation
@testable import S3
import HTTPTransport
import WireFormat
import TestSupport

/// moto's KMS: creates a customer key to encrypt objects with, as a backend would before setting
/// `presign.s3.kmsKeyId`.
enum S3MotoKMS {
    /// A new symmetric key's ARN, from a SigV4-signed `TrentService.CreateKey` (moto routes on the scope's service).
    static func createKey(on server: S3MotoServer, in directory: URL) async throws -> String {
        let body = Data(#"{"Description":"attache tests","KeyUsage":"ENCRYPT_DECRYPT"}"#.utf8)
        let signer = SigV4Signer(
            credentials: SigV4Credentials(accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "unchecked"),
            region: "us-east-1", service: "kms")
        let request = SigV4Request(
            method: "POST", scheme: "http", authority: "127.0.0.1:\(server.port)",
            headers: [
                HTTPHeader("content-type", "application/x-amz-json-1.1"),
                HTTPHeader("x-amz-target", "TrentService.CreateKey"),
            ],
            payloadHash: SigV4Digest.hex(SigV4Digest.sha256(body)))
        let answer = try await S3Curl.send(signer.authorize(request, body: body, at: Date()), in: directory)
        guard answer.status == 200,
            let arn = try JSONParser.parse(answer.body)["KeyMetadata"]?["Arn"]?.stringValue
        else { throw S3IntegrationFailure("KMS CreateKey answered \(answer.status): \(answer.text)") }
        return arn
    }
}
