import Foundation
import Testing

@testable import HTTPTransport
import TestSupport
import WireFormat

@Suite(.nginx) struct HTTPClientTests {
    let nginx = NginxServer.current!

    @Test func putStreamsAFileAndNginxStoresIdenticalBytes() async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let source = try scratch.patternFile("source.bin", size: 5 << 20 + 123)
        let client = try HTTPClient()
        let name = "put-\(UUID().uuidString).bin"

        let response = try await client.upload(
            fromFile: source, request: HTTPRequest(method: "PUT", url: nginx.url("/dav/a/\(name)")))

        #expect(response.status == 201)
        let stored = try Data(contentsOf: URL(fileURLWithPath: "\(nginx.root)/dav/a/\(name)"))
        #expect(stored == (try Data(contentsOf: URL(fileURLWithPath: source))))
    }

    @Test func uploadProgressIncreasesAndEndsExactlyAtTheFileSize() async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let size = 3 << 20 + 7
        let source = try scratch.patternFile("source.bin", size: size)
        let client = try HTTPClient()
        let reports = Locked<[ProgressReport]>([])

        let response = try await client.upload(
            fromFile: source, request: HTTPRequest(method: "PUT", url: nginx.url("/dav/progress-\(UUID()).bin")),
            progress: { sent, total in reports.update { $0.append(ProgressReport(sent: sent, total: total)) } })

        let seen = reports.value
        #expect(response.status == 201)
        #expect(seen.count >= 2)
        #expect(seen.allSatisfy { $0.total == Int64(size) })
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.sent < $1.sent })
        #expect(seen.last?.sent == Int64(size))
    }

    @Test func uploadSendsTheRequestHeadersAndContentLength() async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let source = try scratch.patternFile("photo.jpg", size: 4096)
        let client = try HTTPClient()
        let headers = [HTTPHeader("X-Attache-Check", "yes"), HTTPHeader("Content-Type", "image/jpeg")]

        let accepted = try await client.upload(
            fromFile: source, request: HTTPRequest(method: "PUT", url: nginx.url("/checked/p.jpg"), headers: headers))
        let refused = try await client.upload(
            fromFile: source, request: HTTPRequest(method: "PUT", url: nginx.url("/checked/q.jpg")))

        #expect(accepted.status == 201)
        #expect(refused.status == 412)
    }

    /// Asking for `100 Continue` costs a round trip; only a body of 1 MiB or more is worth it.
    @Test(arguments: [(16 << 10, "expect="), ((1 << 20) - 1, "expect="), (1 << 20, "expect=100-continue")])
    func onlyLargeBodiesWaitForContinue(size: Int, seen: String) async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let source = try scratch.patternFile("body.bin", size: size)

        let response = try await HTTPClient().upload(fromFile: source, request: HTTPRequest(method: "PUT", url: nginx.url("/expect")))

        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == seen)
    }

    /// A body of up to 64 KiB leaves with the request head, through libcurl's POST path renamed to the request's
    /// method: the method, the bytes and the progress must be those of a streamed upload either side of the limit.
    @Test(arguments: [1, 16 << 10, 64 << 10, (64 << 10) + 1])
    func smallAndStreamedBodiesArriveAlike(size: Int) async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let source = try scratch.patternFile("body.bin", size: size)
        let name = "whole-\(UUID().uuidString).bin"
        let reports = Locked<[ProgressReport]>([])

        let response = try await HTTPClient().upload(
            fromFile: source, request: HTTPRequest(method: "PUT", url: nginx.url("/dav/\(name)")),
            progress: { sent, total in reports.update { $0.append(ProgressReport(sent: sent, total: total)) } })

        #expect(response.status == 201)
        let stored = try Data(contentsOf: URL(fileURLWithPath: "\(nginx.root)/dav/\(name)"))
        #expect(stored == (try Data(contentsOf: URL(fileURLWithPath: source))))
        #expect(reports.value.last == ProgressReport(sent: Int64(size), total: Int64(size)))
    }

    /// libcurl's POST path adds a form content type of its own; a small PUT must carry only the caller's.
    @Test(arguments: [([HTTPHeader](), "PUT content-type= length=2048"),
                      ([HTTPHeader("Content-Type", "image/png")], "PUT content-type=image/png length=2048")])
    func aSmallPutCarriesNoInventedContentType(headers: [HTTPHeader], seen: String) async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let source = try scratch.patternFile("body.bin", size: 2048)

        let response = try await HTTPClient().upload(
            fromFile: source, request: HTTPRequest(method: "PUT", url: nginx.url("/request-line"), headers: headers))

        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == seen)
    }

    /// Finished transfers leave their easy handle for the next one, reset: a request that follows a PUT with a body
    /// and a content type on the same handle carries neither.
    @Test func aReusedHandleCarriesNothingOfTheTransferBefore() async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let source = try scratch.patternFile("body.bin", size: 2048)
        let client = try HTTPClient(configuration: .init(transferThreads: 1))
        let pool = try #require(client.loops.first?.easyHandles)

        let put = try await client.upload(
            fromFile: source,
            request: HTTPRequest(method: "PUT", url: nginx.url("/request-line"), headers: [HTTPHeader("Content-Type", "image/png")]))
        #expect(String(decoding: put.body, as: UTF8.self) == "PUT content-type=image/png length=2048")
        #expect(pool.count == 1, "the PUT's handle was kept")

        let get = try await client.send(HTTPRequest(url: nginx.url("/request-line")))

        #expect(String(decoding: get.body, as: UTF8.self) == "GET content-type= length=")
        #expect(pool.count == 1, "the GET took the PUT's handle and gave it back")
    }

    /// Work reaches a sleeping transfer thread through its wake-up alone. The thread here sleeps 20 s when idle,
    /// so requests left waiting for that sleep to end (a wake-up skipped, or posted as the thread went to sleep)
    /// take minutes and break the time limit instead of passing late; done right, they take milliseconds.
    @Test(.timeLimit(.minutes(1)))
    func requestsReachAnIdleTransferThreadAtOnce() async throws {
        let client = try HTTPClient(configuration: HTTPClient.Configuration(), idlePoll: .seconds(20))
        for _ in 0..<20 {
            #expect(try await client.send(HTTPRequest(method: "GET", url: nginx.url("/json"))).status == 200)
        }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<64 {
                group.addTask { try await client.send(HTTPRequest(method: "GET", url: nginx.url("/json"))).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 64))
    }

    /// A query goes to libcurl as the request's target (RequestTarget): the server sees exactly the path and query
    /// of the URL, percent-escapes and all, for uploads and plain requests; a path with dot segments is still
    /// resolved as libcurl resolves it.
    @Test func theServerSeesThePathAndQueryOfTheURLExactly() async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let source = try scratch.patternFile("photo.jpg", size: 16 << 10)
        let client = try HTTPClient()
        let query = "X-Amz-Credential=AKID%2F20261206%2Fus-east-1%2Fs3%2Faws4_request&empty=&slash=/a/../b&"
            + "X-Amz-Signature=" + String(repeating: "0f", count: 32)

        let uploaded = try await client.upload(
            fromFile: source, request: HTTPRequest(method: "PUT", url: nginx.url("/target/b%201/photo.jpg?" + query)))
        let sent = try await client.send(HTTPRequest(method: "POST", url: nginx.url("/target/call?" + query)))
        let resolved = try await client.send(HTTPRequest(url: nginx.url("/target/a/../b?x=1")))

        #expect(String(decoding: uploaded.body, as: UTF8.self) == "PUT /target/b%201/photo.jpg?" + query)
        #expect(String(decoding: sent.body, as: UTF8.self) == "POST /target/call?" + query)
        #expect(String(decoding: resolved.body, as: UTF8.self) == "GET /target/b?x=1")
    }

    /// The query goes onto the request line as the target libcurl is given, as it is: a space or a line break in it
    /// would split that line, so the whole URL is still checked by libcurl's parser first and refused.
    @Test(arguments: ["?a=b c", "?a=b\r\nX-Injected: 1", "?a=\u{7F}"])
    func aQueryThatWouldBreakTheRequestLineIsRefusedBeforeAnythingIsSent(query: String) async throws {
        let client = try HTTPClient()

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await client.send(HTTPRequest(method: "PUT", url: nginx.url("/target/x") + query))
        }

        #expect(error?.code == .invalidURL)
    }

    @Test func sendReturnsStatusHeadersAndBody() async throws {
        let client = try HTTPClient()

        let response = try await client.send(HTTPRequest(url: nginx.url("/json")))

        #expect(response.status == 200)
        #expect(response.header("content-type") == "application/json")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"ok":true}"#)
    }

    @Test func sequentialRequestsReuseOneConnection() async throws {
        let client = try HTTPClient()
        var connections: Set<String> = []

        for _ in 0..<5 {
            let response = try await client.send(HTTPRequest(url: nginx.url("/connection")))
            connections.insert(String(decoding: response.body, as: UTF8.self))
        }

        #expect(connections.count == 1)
    }

    /// libcurl sizes its connection cache by the transfers attached at the moment (four each): in a lull of a
    /// single transfer, every finished request closed an idle connection, and the next burst opened them again.
    /// nginx paces each answer at 64 KiB/s beyond its first 64 KiB, so a burst's 16 downloads overlap and hold
    /// 16 connections; after a lull of 8 single requests the second burst must find all of them still open.
    @Test func aBurstLeavesItsConnectionsForTheNext() async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        for index in 0..<16 {
            try Data(count: 96 << 10).write(to: URL(fileURLWithPath: "\(nginx.root)/files/paced-\(index).bin"))
        }
        let client = try HTTPClient()
        func burst(_ round: Int) async throws -> Set<String> {
            try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        let response = try await client.download(
                            HTTPRequest(url: nginx.url("/paced/paced-\(index).bin")), toFile: scratch.path("p\(round)-\(index)"))
                        return response.header("X-Connection") ?? "none"
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
        }

        let first = try await burst(1)
        for _ in 0..<8 {
            #expect(try await client.send(HTTPRequest(url: nginx.url("/connection"))).status == 200)
        }
        let second = try await burst(2)

        #expect(first.count == 16)
        #expect(second.subtracting(first).isEmpty, "\(second.subtracting(first).count) new connections in the second burst")
    }

    /// Exchanges do not wait for the transfer cap, so a burst of them (a presign call for each of hundreds of new
    /// jobs) used to open a connection each, and close all but a cache's worth as they finished. A host gets at
    /// most as many connections as the cache keeps (4 here); the rest of the burst waits for one and reuses it.
    @Test func aBurstOfExchangesSharesTheHostsCachedConnections() async throws {
        let client = try HTTPClient(configuration: .init(maxConcurrentTransfers: 2, transferThreads: 1))
        let connections = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<24 {
                group.addTask { String(decoding: try await client.send(HTTPRequest(url: nginx.url("/connection"))).body, as: UTF8.self) }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }

        #expect(connections.count == 24)
        #expect(Set(connections).count <= 4, "\(Set(connections).count) connections for 24 exchanges")
    }

    @Test func sendReturnsErrorStatusesInsteadOfThrowing() async throws {
        let client = try HTTPClient()

        let response = try await client.send(
            HTTPRequest(method: "POST", url: nginx.url("/fault/400"), body: Data("{}".utf8)))

        #expect(response.status == 400)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"bad"}"#)
    }

    @Test func sendFailsWhenTheBodyIsLargerThanAllowed() async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        _ = try scratch.patternFile("unused", size: 1)
        try Data(count: 10_000).write(to: URL(fileURLWithPath: "\(nginx.root)/files/ten-k.bin"))
        let client = try HTTPClient(configuration: .init(maxResponseBodySize: 4096))

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await client.send(HTTPRequest(url: nginx.url("/files/ten-k.bin")))
        }
        #expect(error?.code == .sizeLimitExceeded)
    }

    @Test func downloadWritesTheFileAndReportsProgressAgainstContentLength() async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let original = try scratch.patternFile("original.bin", size: 2 << 20)
        try FileManager.default.copyItem(atPath: original, toPath: "\(nginx.root)/files/download-ok.bin")
        let client = try HTTPClient()
        let last = Locked<ProgressReport>(ProgressReport(sent: 0, total: nil))
        let target = scratch.path("copy.bin")

        let response = try await client.download(
            HTTPRequest(url: nginx.url("/files/download-ok.bin")), toFile: target, sizeLimit: 2 << 20
        ) { received, total in
            last.update { $0 = ProgressReport(sent: received, total: total) }
        }

        #expect(response.status == 200)
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == (try Data(contentsOf: URL(fileURLWithPath: original))))
        #expect(last.value.sent == 2 << 20)
        #expect(last.value.total == 2 << 20)
    }

    @Test func downloadOverTheAnnouncedLimitFailsAndLeavesNoFile() async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        try Data(count: 100_000).write(to: URL(fileURLWithPath: "\(nginx.root)/files/too-big.bin"))
        let client = try HTTPClient()
        let target = scratch.path("too-big.bin")

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await client.download(
                HTTPRequest(url: nginx.url("/files/too-big.bin")), toFile: target, sizeLimit: 99_999)
        }

        #expect(error?.code == .sizeLimitExceeded)
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test func downloadWithoutContentLengthStopsAtTheLimitAndLeavesNoFile() async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        try Data(count: 3 << 20).write(to: URL(fileURLWithPath: "\(nginx.root)/files/unannounced.bin"))
        let client = try HTTPClient()
        let target = scratch.path("unannounced.bin")
        let totals = Locked<[Int64?]>([])

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await client.download(
                HTTPRequest(url: nginx.url("/chunked/unannounced.bin")), toFile: target, sizeLimit: 1 << 20
            ) { _, total in totals.update { $0.append(total) } }
        }

        #expect(error?.code == .sizeLimitExceeded)
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(!totals.value.isEmpty)
        #expect(totals.value.allSatisfy { $0 == nil })
    }

    @Test func downloadOfAnErrorStatusReturnsItWithoutCreatingTheFile() async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let client = try HTTPClient()
        let target = scratch.path("missing.bin")

        let response = try await client.download(HTTPRequest(url: nginx.url("/files/does-not-exist")), toFile: target)

        #expect(response.status == 404)
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test(arguments: ["ftp://127.0.0.1/x", "file:///etc/passwd", "http://", "not a url", "127.0.0.1/no-scheme"])
    func urlsThatAreNotHTTPAreRefusedBeforeAnythingIsSent(url: String) async throws {
        let client = try HTTPClient()

        let error = await #expect(throws: HTTPTransportError.self) {
            _ = try await client.send(HTTPRequest(url: url))
        }

        #expect(error?.code == .invalidURL)
    }

    /// Starts `count` slow downloads of one file at once and waits for all of them. `/paced/` sends 64 KiB a second
    /// after a first second's worth (nginx lets `limit_rate` start with one second of it at once), so a 128 KiB file
    /// takes about a second: transfers started together overlap however loaded the machine is. `/slow/` at 2 MB/s
    /// sent 512 KiB in that first burst, and under a load average near 30 the transfers once ran one after another.
    private func downloadSlowlyAtOnce(_ count: Int, with client: HTTPClient, name: String) async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        try Data(count: 128 << 10).write(to: URL(fileURLWithPath: "\(nginx.root)/files/\(name).bin"))
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<count {
                group.addTask {
                    try await client.download(
                        HTTPRequest(url: nginx.url("/paced/\(name).bin")), toFile: scratch.path("\(name)\(index)")
                    ).status
                }
            }
            for try await status in group { #expect(status == 200) }
        }
    }

    @Test func theGlobalCapBoundsHowManyTransfersRunAtOnce() async throws {
        let client = try HTTPClient(configuration: .init(maxConcurrentTransfers: 2, transferThreads: 1))
        try await downloadSlowlyAtOnce(4, with: client, name: "capped")
        #expect(client.loops[0].peakRunningCount == 2)
        #expect(client.runningTransfers == 0)
    }

    @Test func transfersSpreadOverTheTransferThreads() async throws {
        let client = try HTTPClient(configuration: .init(maxConcurrentTransfers: 4, transferThreads: 2))
        #expect(client.loops.count == 2)
        try await downloadSlowlyAtOnce(4, with: client, name: "spread")
        #expect(client.loops.allSatisfy { $0.peakRunningCount >= 1 }, "transfers at once went to both threads")
        #expect(HTTPClient.Configuration(maxConcurrentTransfers: 1, transferThreads: 8).validated().transferThreads == 1)
    }

    @Test func aSmallExchangeDoesNotWaitBehindTransfersForTheCap() async throws {
        let client = try HTTPClient(configuration: .init(maxConcurrentTransfers: 1))
        try await client.slots.acquire()
        defer { client.slots.release() }
        // The one slot is taken (an upload under way): a presign call or message post still goes out.
        let response = try await client.send(HTTPRequest(url: nginx.url("/files/")))
        #expect(response.status < 500)
        #expect(client.waitingTransfers == 0 && client.runningTransfers == 1)
    }

    /// A file holding a slot of the worker's runs its one request on that slot: waiting for the client's cap as
    /// well (taken by other files' parallel parts) would count against the file's stall timeout while no byte can
    /// move. Any other upload still waits.
    @Test func anUploadOnItsOwnSlotDoesNotWaitForTheCapAndOthersDo() async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-http")
        defer { scratch.remove() }
        let source = try scratch.patternFile("source.bin", size: 4096)
        let client = try HTTPClient(configuration: .init(maxConcurrentTransfers: 1))
        try await client.slots.acquire()
        var request = HTTPRequest(method: "PUT", url: nginx.url("/dav/own-slot-\(UUID()).bin"))
        request.onOwnSlot = true
        let response = try await client.upload(fromFile: source, request: request)
        #expect(response.status == 201)

        let waiting = Task { try await client.upload(fromFile: source, request: HTTPRequest(method: "PUT", url: nginx.url("/dav/capped-\(UUID()).bin"))) }
        #expect(await eventually { client.waitingTransfers == 1 }, "an upload without a slot of its own waits for the cap")
        client.slots.release()
        #expect(try await waiting.value.status == 201)
    }
}
