import Foundation
import Testing

@testable import HTTPTransport
import TestSupport

/// Uploads of a byte range of a file, as multipart parts send them.
@Suite(.nginx) struct HTTPClientRangeTests {
    let nginx = NginxServer.current!

    @Test(arguments: [(1 << 20 + 7, 3 << 20 + 11), (0, 1), (4097, 4097 + 16 << 10), (5 << 20, 5 << 20 + 123)])
    func aRangeOfAFileIsSentAsTheWholeBody(start: Int, end: Int) async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let source = try scratch.patternFile("source.bin", size: 5 << 20 + 123)
        let client = try HTTPClient()
        let name = "range-\(UUID().uuidString).bin"
        let reports = Locked<[ProgressReport]>([])

        let response = try await client.upload(
            fromFile: source, range: Int64(start)..<Int64(end),
            request: HTTPRequest(method: "PUT", url: nginx.url("/dav/\(name)")),
            progress: { sent, total in reports.update { $0.append(ProgressReport(sent: sent, total: total)) } })

        #expect(response.status == 201)
        let stored = try Data(contentsOf: URL(fileURLWithPath: "\(nginx.root)/dav/\(name)"))
        let whole = try Data(contentsOf: URL(fileURLWithPath: source))
        #expect(stored == whole.subdata(in: start..<end))
        #expect(reports.value.allSatisfy { $0.total == Int64(end - start) })
        #expect(reports.value.last?.sent == Int64(end - start))
    }

    @Test func aRangeReachingPastTheEndFailsBeforeAnythingIsSent() async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let source = try scratch.patternFile("source.bin", size: 4096)
        let client = try HTTPClient()
        let name = "past-end-\(UUID().uuidString).bin"

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await client.upload(
                fromFile: source, range: 1024..<4097, request: HTTPRequest(method: "PUT", url: nginx.url("/dav/\(name)")))
        }

        #expect(error?.code == .localFile)
        #expect(error?.isRetryable == false)
        #expect(!FileManager.default.fileExists(atPath: "\(nginx.root)/dav/\(name)"))
    }
}
