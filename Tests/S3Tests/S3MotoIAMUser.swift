import Foundation
@testable import S3
import TestSupport
import Testing
import HTTPTransport
import WireFormat

/// An IAM user with an allow-all policy on a signature-checking moto server, created once per server with moto's
/// first three (unauthenticated) requests; its access key then signs everything else.
///
/// Failures are thrown as plain errors, never recorded with `#require`: the setup is shared, and an issue recorded
/// in one test's context would let the other tests waiting on it pass.
actor S3MotoIAMUser {
    static let shared = S3MotoIAMUser()
    /// The requests moto must let through unchecked to create the user: CreateUser, CreateAccessKey,
    /// PutUserPolicy.
    static let setupRequestCount = 3

    private var users: [String: Task<SigV4Credentials, any Error>] = [:]

    /// The user's credentials on `server`, creating the user on first use.
    func credentials(on server: S3MotoServer) async throws -> SigV4Credentials {
        if let existing = users[server.endpoint] { return try await existing.value }
        let task = Task { try await Self.create(on: server) }
        users[server.endpoint] = task
        return try await task.value
    }

    private static func create(on server: S3MotoServer) async throws -> SigV4Credentials {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attache-iam-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let policy = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}"#
        _ = try await call(["Action": "CreateUser", "UserName": "attache-tests"], on: server, in: directory)
        let key = try await call(["Action": "CreateAccessKey", "UserName": "attache-tests"], on: server, in: directory)
        _ = try await call(
            ["Action": "PutUserPolicy", "UserName": "attache-tests", "PolicyName": "all", "PolicyDocument": policy],
            on: server, in: directory)
        guard let accessKey = key.firstDescendant(named: "AccessKey"), let id = accessKey.childText("AccessKeyId"),
            let secret = accessKey.childText("SecretAccessKey")
        else { throw S3IntegrationFailure("CreateAccessKey answered no key") }
        return SigV4Credentials(accessKeyId: id, secretAccessKey: secret)
    }

    /// One IAM query-API call, form-encoded and SigV4-signed for service `iam` (moto routes on the scope).
    private static func call(_ parameters: [String: String], on server: S3MotoServer, in directory: URL)
        async throws -> S3XMLElement
    {
        let form = (parameters.merging(["Version": "2010-05-08"]) { $1 })
            .sorted { $0.key < $1.key }
            .map { SigV4Encoding.uriEncode($0.key) + "=" + SigV4Encoding.uriEncode($0.value) }
            .joined(separator: "&")
        let body = Data(form.utf8)
        let signer = SigV4Signer(
            credentials: SigV4Credentials(accessKeyId: "AKIDSETUP", secretAccessKey: "unchecked"),
            region: "us-east-1", service: "iam")
        let request = SigV4Request(
            method: "POST", scheme: "http", authority: "127.0.0.1:\(server.port)",
            headers: [HTTPHeader("content-type", "application/x-www-form-urlencoded; charset=utf-8")],
            payloadHash: SigV4Digest.hex(SigV4Digest.sha256(body)))
        let answer = try await S3Curl.send(signer.authorize(request, body: body, at: Date()), in: directory)
        guard answer.status == 200 else {
            throw S3IntegrationFailure("IAM \(parameters["Action"] ?? "") answered \(answer.status): \(answer.text)")
        }
        return try S3XMLElement.parse(answer.body)
    }
}
