import Synchronization

/// A token bucket of bytes: a rate cap shared by every transfer that draws on it (DESIGN §12 *Bandwidth*).
///
/// libcurl's per-transfer speed cap cannot hold a total: transfers come and go, and each would need its share
/// recomputed. A shared bucket holds it by construction — whatever the number of transfers, no more than `rate`
/// bytes a second (plus one burst) leave through it — and a transfer that finds it empty is paused until the bytes
/// it needs have accrued, rather than polled.
///
/// Thread safety: one lock; transfers on any loop thread draw on the same bucket.
public final class ByteRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    /// Bytes per second.
    public let rate: Int64
    /// The most bytes that may leave at once after a pause: a tenth of a second's worth, at least 16 KiB.
    public let burst: Int64
    private let bucket: Mutex<Bucket>

    public init(bytesPerSecond rate: Int64, now: ContinuousClock.Instant = .now) {
        self.rate = max(1, rate)
        burst = max(16 * 1024, self.rate / 10)
        bucket = Mutex(Bucket(tokens: Double(burst), updated: now))
    }

    /// Takes up to `wanted` bytes' worth; returns how many were granted (0 when the bucket is empty) and, when fewer
    /// than `wanted` were, when the rest can be had.
    public func take(upTo wanted: Int, now: ContinuousClock.Instant) -> (granted: Int, retryAt: ContinuousClock.Instant?) {
        bucket.withLock { bucket in
            refill(&bucket, now: now)
            let granted = min(wanted, Int(bucket.tokens))
            bucket.tokens -= Double(granted)
            guard granted < wanted else { return (granted, nil) }
            // When one more chunk's worth (up to a burst) will have accrued: waking for a single byte would spin.
            let needed = Double(min(Int64(wanted - granted), burst)) - bucket.tokens
            return (granted, now + .nanoseconds(Int64((needed / Double(rate) * 1e9).rounded(.up))))
        }
    }

    /// Puts back bytes taken and not sent (another cap on the same transfer granted fewer).
    public func giveBack(_ count: Int) {
        guard count > 0 else { return }
        bucket.withLock { $0.tokens = min(Double(burst), $0.tokens + Double(count)) }
    }

    /// Whether the bucket is full at `now`: nothing has drawn on it for a while.
    func isIdle(now: ContinuousClock.Instant) -> Bool {
        bucket.withLock { bucket in
            refill(&bucket, now: now)
            return bucket.tokens >= Double(burst)
        }
    }

    private func refill(_ bucket: inout Bucket, now: ContinuousClock.Instant) {
        guard now > bucket.updated else { return }
        let elapsed = bucket.updated.duration(to: now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        bucket.tokens = min(Double(burst), bucket.tokens + seconds * Double(rate))
        bucket.updated = now
    }
}

/// The upload rate caps of one client: the worker's total (`upload.maxBytesPerSecond`) and each tenant's
/// (`upload.maxBytesPerSecondPerTenant`), as the buckets a transfer draws on.
///
/// A tenant's bucket lives while the tenant uploads: once there are many, one that is full and that no transfer
/// holds is dropped, so tenants that come and go do not accumulate.
public final class BandwidthCaps: Sendable {
    public let total: ByteRateLimiter?
    public let perTenant: Int64?
    private let tenants = Mutex<[String: ByteRateLimiter]>([:])
    /// Buckets kept before idle ones are dropped.
    static let tenantsKept = 1024

    public init(total: Int64?, perTenant: Int64?) {
        self.total = total.map { ByteRateLimiter(bytesPerSecond: $0) }
        self.perTenant = perTenant
    }

    /// Whether any cap is set.
    public var isActive: Bool { total != nil || perTenant != nil }

    /// The buckets an upload of `tenant` draws on, the worker's first.
    public func limiters(for tenant: String?) -> [ByteRateLimiter] {
        var limiters: [ByteRateLimiter] = []
        if let total { limiters.append(total) }
        if let perTenant, let tenant { limiters.append(bucket(for: tenant, rate: perTenant)) }
        return limiters
    }

    private func bucket(for tenant: String, rate: Int64) -> ByteRateLimiter {
        tenants.withLock { tenants in
            if let bucket = tenants[tenant] { return bucket }
            if tenants.count >= Self.tenantsKept { dropUnused(&tenants) }
            let bucket = ByteRateLimiter(bytesPerSecond: rate)
            tenants[tenant] = bucket
            return bucket
        }
    }

    /// Drops the buckets that are full and held by no transfer. Full is not enough: a tenant uploading below its cap,
    /// or paused by the worker's, keeps a full bucket, and its transfers hold it to the end; given a fresh one, its
    /// next transfers would draw on another bucket beside the first, the tenant's cap doubled.
    private func dropUnused(_ tenants: inout [String: ByteRateLimiter]) {
        let now = ContinuousClock.now
        for tenant in Array(tenants.keys) {
            // Taken out to be looked at: then this is the only reference unless a transfer holds one.
            guard var bucket = tenants.removeValue(forKey: tenant) else { continue }
            if !isKnownUniquelyReferenced(&bucket) || !bucket.isIdle(now: now) { tenants[tenant] = bucket }
        }
    }

    /// The tenants with a bucket now.
    var tenantCount: Int { tenants.withLock { $0.count } }

    /// Takes up to `wanted` bytes from every bucket in `limiters`: what all of them granted; bytes one granted beyond
    /// that go back. With fewer than wanted, also when to ask again.
    static func take(upTo wanted: Int, from limiters: [ByteRateLimiter],
                     now: ContinuousClock.Instant) -> (granted: Int, retryAt: ContinuousClock.Instant?) {
        var granted = wanted
        var retryAt: ContinuousClock.Instant?
        var taken: [(ByteRateLimiter, Int)] = []
        for limiter in limiters {
            let answer = limiter.take(upTo: granted, now: now)
            taken.append((limiter, answer.granted))
            granted = answer.granted
            if let at = answer.retryAt { retryAt = max(retryAt ?? at, at) }
            if granted == 0 { break }
        }
        for (limiter, count) in taken { limiter.giveBack(count - granted) }
        return (granted, retryAt)
    }
}
