import CCurl
import Foundation
import Testing

@testable import HTTPTransport
import TestSupport

/// Upload rate caps (DESIGN §12 *Bandwidth*): token buckets shared by every transfer that draws on them.
@Suite struct ByteRateLimiterTests {
    /// Transfers as the curl loop drives them, over virtual time: each asks for a buffer's worth, sends what it is
    /// granted, and when granted nothing waits until the bucket says.
    private static func simulate(transfers: Int, limiters: [ByteRateLimiter], seconds: Int, start: ContinuousClock.Instant)
        -> [Int] {
        var sent = [Int](repeating: 0, count: transfers)
        var wakeAt = [ContinuousClock.Instant](repeating: start, count: transfers)
        let end = start + .seconds(seconds)
        var now = start
        while now < end {
            for index in 0..<transfers where wakeAt[index] <= now {
                let (granted, retryAt) = BandwidthCaps.take(upTo: 64 * 1024, from: limiters, now: now)
                sent[index] += granted
                wakeAt[index] = granted == 0 ? (retryAt ?? now) : now
            }
            now = min(end, (wakeAt.min() ?? end) > now ? wakeAt.min()! : now + .milliseconds(1))
        }
        return sent
    }

    @Test func eightTransfersTogetherStayWithinTenPercentOfTheCapOverTenSeconds() {
        let start = ContinuousClock.now
        let rate: Int64 = 8 << 20
        let cap = ByteRateLimiter(bytesPerSecond: rate, now: start)
        let sent = Self.simulate(transfers: 8, limiters: [cap], seconds: 10, start: start)
        let total = Double(sent.reduce(0, +))
        #expect(abs(total - Double(rate * 10)) <= Double(rate * 10) * 0.10, "sent \(total) bytes in 10 s at \(rate)/s")
        #expect(sent.allSatisfy { $0 > 0 }, "every transfer moved: \(sent)")
    }

    @Test func aTenantCapHoldsWithinTheWorkersAndGivesBackWhatItCannotUse() {
        let start = ContinuousClock.now
        let worker = ByteRateLimiter(bytesPerSecond: 4 << 20, now: start)
        let tenant = ByteRateLimiter(bytesPerSecond: 1 << 20, now: start)
        let other = Self.simulate(transfers: 2, limiters: [worker], seconds: 0, start: start)
        #expect(other == [0, 0])
        let capped = Self.simulate(transfers: 4, limiters: [worker, tenant], seconds: 10, start: start)
        let total = Double(capped.reduce(0, +))
        #expect(abs(total - Double(10 << 20)) <= Double(10 << 20) * 0.10, "the tenant's 1 MiB/s holds: \(total)")
        // The worker's bucket was only charged what the tenant's let through: it still has its burst to give.
        #expect(worker.take(upTo: Int(worker.burst), now: start + .seconds(10)).granted == Int(worker.burst))
    }

    /// Tenants that come and go do not accumulate buckets, but a tenant whose transfers still hold its bucket keeps
    /// it, full or not: given a second, its new transfers would draw beside its running ones, its cap doubled.
    @Test func aTenantsBucketStaysWhileATransferHoldsItAndGoesOnceNoneDoes() {
        let caps = BandwidthCaps(total: nil, perTenant: 1 << 20)
        var running = caps.limiters(for: "steady")  // a long upload below its cap: its bucket stays full
        weak let steady = running.first
        // The table fills; the next new tenant finds it full and drops what is full and held by nobody.
        for index in 0..<BandwidthCaps.tenantsKept { _ = caps.limiters(for: "passing-\(index)") }
        #expect(caps.tenantCount == 2, "the steady tenant's and the newest")
        #expect(caps.limiters(for: "steady").first === running.first, "the running upload's bucket is still the tenant's")

        running = []
        for index in 0..<BandwidthCaps.tenantsKept { _ = caps.limiters(for: "later-\(index)") }
        #expect(steady == nil, "held by nobody any more, it went")
    }

    @Test func anEmptyBucketSaysWhenTheNextChunkWillBeThere() {
        let start = ContinuousClock.now
        let cap = ByteRateLimiter(bytesPerSecond: 100 * 1024, now: start)
        #expect(cap.take(upTo: Int(cap.burst), now: start).granted == Int(cap.burst))
        let (granted, retryAt) = cap.take(upTo: 32 * 1024, now: start)
        #expect(granted == 0)
        let wait = try! #require(retryAt).duration(to: start) * -1
        #expect(wait >= .milliseconds(150) && wait <= .milliseconds(170), "16 KiB at 100 KiB/s: \(wait)")
    }
}

/// A transfer the caps hold across pauses says so through its progress: its caller's stall clock must hear that it
/// waits, not that it stalled (DESIGN §4).
@Suite struct CappedTransferTests {
    @Test func aPauseThatFollowsAPauseRepeatsTheProgressAndNoneIsLongerThanAThirdOfTheStallTimeout() throws {
        let start = ContinuousClock.now
        let cap = ByteRateLimiter(bytesPerSecond: 1, now: start)
        _ = cap.take(upTo: Int(cap.burst), now: start)  // drained: a chunk would take hours to accrue
        let reports = Locked<[Int64]>([])
        let spec = TransferSpec(
            request: HTTPRequest(method: "PUT", url: "http://127.0.0.1:9/object"), body: .bytes(Data(count: 4096)),
            sink: .memory(limit: 0, truncate: true), progress: .upload { sent, _ in reports.update { $0.append(sent) } },
            stallTimeout: .milliseconds(300), connectTimeout: .seconds(1), userAgent: "test", uploadBufferSize: 4096,
            throttles: [cap])
        let transfer = Transfer(id: 1, spec: spec)
        transfer.uploadSize = 4096
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
        defer { buffer.deallocate() }
        let pause = Int(CURL_READFUNC_PAUSE)

        let first = transfer.supplyBody(into: buffer)
        let askedBy = ContinuousClock.now
        let firstWake = try #require(transfer.pausedUntil)
        let second = transfer.supplyBody(into: buffer)
        cap.giveBack(100)
        let granted = transfer.supplyBody(into: buffer)
        let afterBytes = transfer.supplyBody(into: buffer)

        #expect(first == pause && second == pause && afterBytes == pause)
        #expect(granted == 100)
        #expect(reports.value == [0], "only the pause after a pause reported; after bytes moved, their report says it")
        #expect(firstWake <= askedBy + .milliseconds(100), "asked again within a third of the 300 ms stall timeout, not in hours")
    }
}

@Suite(.nginx) struct BandwidthCapTransferTests {
    let nginx = NginxServer.current!

    /// A cap of 16 KiB/s pauses the transfer for up to a second at a time, longer than its 300 ms stall timeout: the
    /// pauses are not stalls, and every byte arrives.
    @Test func aThrottledUploadIsPausedNotStalledAndArrivesWhole() async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-bandwidth")
        defer { scratch.remove() }
        let size = 40 * 1024
        let source = try scratch.patternFile("source.bin", size: size)
        var configuration = HTTPClient.Configuration(stallTimeout: .milliseconds(300))
        configuration.maxUploadBytesPerSecond = 16 * 1024
        let client = try HTTPClient(configuration: configuration)
        let name = "throttled-\(UUID().uuidString).bin"
        var request = HTTPRequest(method: "PUT", url: nginx.url("/dav/a/\(name)"))
        request.bandwidthTenant = "acme"
        let reports = Locked<[Int64]>([])

        let response = try await client.upload(fromFile: source, request: request, progress: { sent, _ in reports.update { $0.append(sent) } })

        #expect(response.status == 201)
        let stored = try Data(contentsOf: URL(fileURLWithPath: "\(nginx.root)/dav/a/\(name)"))
        #expect(stored == (try Data(contentsOf: URL(fileURLWithPath: source))))
        // Progress follows the throttled bytes: it climbs in steps of at most a burst, not in one jump.
        let steps = zip(reports.value, reports.value.dropFirst()).map { $1 - $0 }
        #expect(reports.value.last == Int64(size))
        #expect(steps.allSatisfy { $0 <= 16 * 1024 }, "steps \(steps)")
        #expect(steps.allSatisfy { $0 >= 0 }, "never backwards: \(steps)")
    }

    @Test func anUploadWithoutATenantIsNotCapped() async throws {
        let scratch = try TemporaryDirectory(prefix: "attache-bandwidth")
        defer { scratch.remove() }
        let source = try scratch.patternFile("source.bin", size: 1 << 20)
        var configuration = HTTPClient.Configuration(stallTimeout: .milliseconds(300))
        configuration.maxUploadBytesPerSecond = 16 * 1024
        let client = try HTTPClient(configuration: configuration)
        // A megabyte at 16 KiB/s would take a minute; uncapped, the suite's time limit is never near.
        let response = try await client.upload(fromFile: source, request: HTTPRequest(method: "PUT", url: nginx.url("/dav/a/free-\(UUID()).bin")))
        #expect(response.status == 201)
    }
}
