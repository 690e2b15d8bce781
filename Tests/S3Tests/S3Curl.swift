import Foundation
@testable import S3
import TestSupport
import WireFormat

/// Debian's `curl` command line as the HTTP client of the integration tests: sends a signed request exactly as
/// given (method, URL, headers, body from a file) and returns status, headers and body.
enum S3Curl {
    struct Response {
        var status: Int
        var headers: [HTTPHeader]
        var body: Data

        func header(_ name: String) -> String? {
            headers.last { $0.name.lowercased() == name.lowercased() }?.value
        }

        var text: String { String(decoding: body, as: UTF8.self) }
    }

    static func send(
        _ method: String, _ url: String, headers: [HTTPHeader], bodyFile: URL? = nil, in directory: URL
    ) async throws -> Response {
        let tag = UUID().uuidString
        let bodyOut = directory.appendingPathComponent("response-\(tag).body")
        let headersOut = directory.appendingPathComponent("response-\(tag).headers")
        // -g: a URL is used as is (no globbing); "Expect:" avoids curl's 100-continue pause on larger bodies.
        var arguments = ["-sS", "-g", "-X", method, "-o", bodyOut.path, "-D", headersOut.path, "-w", "%{http_code}"]
        for header in headers {
            arguments += ["-H", "\(header.name): \(header.value)"]
        }
        if let bodyFile {
            // -T streams the file like an uploader does, but appends the file name to a URL ending in "/".
            let path = url.split(separator: "?", maxSplits: 1).first ?? ""
            arguments += path.hasSuffix("/") ? ["--data-binary", "@" + bodyFile.path] : ["-T", bodyFile.path]
            arguments += ["-H", "Expect:"]
        }
        arguments.append(url)
        let outcome = try await Subprocess.run("/usr/bin/curl", arguments)
        guard outcome.status == 0, let status = Int(outcome.outputText) else {
            throw S3IntegrationFailure("curl failed (\(outcome.status)): \(outcome.errorText)")
        }
        let rawHeaders = (try? String(contentsOf: headersOut, encoding: .utf8)) ?? ""
        let parsed = rawHeaders.split(whereSeparator: \.isNewline).compactMap { line -> HTTPHeader? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return HTTPHeader(
                String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let body = (try? Data(contentsOf: bodyOut)) ?? Data()
        return Response(status: status, headers: parsed, body: body)
    }

    /// Sends a signed request; a non-empty body is written to a file first so curl sends it byte for byte.
    static func send(_ request: SigV4SignedRequest, in directory: URL) async throws -> Response {
        var bodyFile: URL?
        if !request.body.isEmpty || ["PUT", "POST"].contains(request.method) {
            let file = directory.appendingPathComponent("request-\(UUID().uuidString).body")
            try request.body.write(to: file)
            bodyFile = file
        }
        return try await send(request.method, request.url, headers: request.headers, bodyFile: bodyFile, in: directory)
    }
}
