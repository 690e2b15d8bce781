import Foundation
import Synchronization

/// An HTTP client on libcurl multi loops: small JSON exchanges, streaming uploads and downloads.
///
/// Transfers share `Configuration.transferThreads` multi handles, each on its own thread; a transfer goes to the
/// loop with the fewest of this client's transfers, so connections are reused within a loop and the per-byte
/// work (reading a source, hashing it) spreads over the cores. A global cap
/// (`Configuration.maxConcurrentTransfers`) bounds how many uploads and downloads run at once; the rest wait in
/// arrival order. Small exchanges (`send`: presign calls, message posts) do not wait for the cap: they steer
/// transfers already counted, and one held behind queued uploads would hold back the upload it presigns, or the
/// message of a batch that is done, for as long as the queue takes.
/// Only `http` and `https` are spoken; TLS peers are verified. Cancelling the calling task aborts its transfer at
/// once (or takes it out of the queue). Progress callbacks run on the transfer thread: keep them short and
/// never block in them. Create one client per process and share it; the thread stops when the client is released.
public final class HTTPClient: Sendable {
    /// The configuration in force, after clamping.
    public let configuration: Configuration
    /// The libcurl threads transfers run on.
    let loops: [CurlMultiLoop]
    /// This client's transfers on each loop, counted when one is handed over (a loop's own count lags behind).
    private let assigned: Mutex<[Int]>
    /// The global cap; a slot is held from before a transfer starts until it ends.
    let slots: FairSlots
    /// The upload rate caps uploads to storage draw on.
    let bandwidth: BandwidthCaps
    /// The origins of URLs that passed libcurl's parser, so a request's URL is checked without parsing it again.
    private let origins = ParsedOrigins()

    /// Starts the transfer thread.
    public convenience init(configuration: Configuration = Configuration()) throws {
        try self.init(configuration: configuration, idlePoll: .seconds(1))
    }

    /// Starts the transfer thread, which sleeps at most `idlePoll` when nothing is due.
    init(configuration: Configuration, idlePoll: Duration) throws {
        let configuration = configuration.validated()
        self.configuration = configuration
        // Each transfer under the cap holds one connection, to storage or a source. A host gets twice a loop's
        // share of the cap: uploads to it never wait for one, and exchanges that do not count against the cap
        // (presign calls, message posts) still find connections when the endpoint shares the storage's host.
        let threads = configuration.transferThreads
        let perHost = max(4, 2 * configuration.maxConcurrentTransfers / threads)
        loops = try (0..<threads).map { _ in try CurlMultiLoop(idlePoll: idlePoll, hostConnections: perHost) }
        assigned = Mutex([Int](repeating: 0, count: threads))
        slots = FairSlots(capacity: configuration.maxConcurrentTransfers)
        bandwidth = BandwidthCaps(total: configuration.maxUploadBytesPerSecond,
                                  perTenant: configuration.maxUploadBytesPerSecondPerTenant)
    }

    deinit {
        loops.forEach { $0.shutdown() }
    }

    /// Transfers running right now.
    public var runningTransfers: Int { slots.heldCount }

    /// Requests waiting for the global cap right now.
    public var waitingTransfers: Int { slots.waitingCount }

    /// Sets what to call whenever ``runningTransfers`` + ``waitingTransfers`` changed, outside any lock.
    public func onTransfersChange(_ observer: (@Sendable () -> Void)?) {
        slots.onChange(observer)
    }

    /// Sends a request with an in-memory body and returns the whole answer, whatever its status; it does not wait
    /// for the transfer cap.
    ///
    /// - Throws: `HTTPTransportError` (bad URL, transport, stall, a body over `maxResponseBodySize`),
    ///   `CancellationError`.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let body: TransferSpec.Body = request.body.map { .bytes($0) } ?? .none
        let sink = TransferSpec.Sink.memory(limit: configuration.maxResponseBodySize, truncate: false)
        return try await run(spec(request, body: body, sink: sink, progress: .none), beforeStart: nil, capped: false)
    }

    /// Streams a file from disk as the request body (`PUT` unless the request says otherwise), never holding it
    /// in memory, with `Content-Length` set to the file's size, or to the length of `range`. A body of at most
    /// 64 KiB is the exception: it is read whole and leaves in the same write as the request head.
    ///
    /// - Parameters:
    ///   - range: the bytes of the file to send (a multipart part); nil sends the whole file. A range that reaches
    ///     past the end of the file fails with `.localFile` before anything is sent.
    ///   - beforeStart: runs after a slot under the global cap is granted and before anything is sent; throwing
    ///     from it abandons the transfer with that error (the uploader uses it to refuse expired URLs).
    ///   - progress: `(sent, total)`, never decreasing, ending at the body's size on success; on the transfer thread.
    ///     Repeated unchanged while the rate caps hold the transfer (at least once a second, or a third of the stall
    ///     timeout: `WaitingReports`), never otherwise.
    /// - Returns: the answer, whatever its status; the body is kept up to 64 KiB.
    public func upload(
        fromFile path: String, range: Range<Int64>? = nil, request: HTTPRequest,
        beforeStart: (@Sendable () throws -> Void)? = nil,
        progress: (@Sendable (_ sent: Int64, _ total: Int64) -> Void)? = nil
    ) async throws -> HTTPResponse {
        try await upload(.file(path: path, range: range), request: request, beforeStart: beforeStart, progress: progress)
    }

    /// Streams a body read in place as the request body, like `upload(fromFile:…)`: its size is the one it reports,
    /// whatever the file underneath has grown to since.
    public func upload(
        reading body: any RandomAccessBody, range: Range<Int64>? = nil, request: HTTPRequest,
        beforeStart: (@Sendable () throws -> Void)? = nil,
        progress: (@Sendable (_ sent: Int64, _ total: Int64) -> Void)? = nil
    ) async throws -> HTTPResponse {
        try await upload(.source(body, range: range), request: request, beforeStart: beforeStart, progress: progress)
    }

    private func upload(
        _ body: TransferSpec.Body, request: HTTPRequest, beforeStart: (@Sendable () throws -> Void)?,
        progress: (@Sendable (_ sent: Int64, _ total: Int64) -> Void)?
    ) async throws -> HTTPResponse {
        var request = request
        request.body = nil
        let sink = TransferSpec.Sink.memory(limit: TransferSpec.diagnosticBodyLimit, truncate: true)
        let report: TransferSpec.Progress = progress.map { .upload($0) } ?? .none
        return try await run(spec(request, body: body, sink: sink, progress: report), beforeStart: beforeStart)
    }

    /// Streams a response body into a file (created owner-only, truncated if it exists).
    ///
    /// The file is written only for a 2xx answer; any other answer is returned with its body in memory (up to
    /// 64 KiB) and no file. A `Content-Length` over `sizeLimit` fails before any byte is written, and so does the
    /// first byte past it when the length is not announced. On any failure or cancellation the file is removed.
    ///
    /// - Parameters:
    ///   - addressPolicy: when set, every socket's address is checked before it connects and every connection's
    ///     (reused ones too) before a request goes out on it, on each redirect hop (at most 3 are followed when the
    ///     request follows redirects); no proxy is used. A refusal fails with `.addressRefused` before any byte is
    ///     sent to the refused address, a redirect to another scheme with `.redirectRefused`, a fourth redirect
    ///     with `.tooManyRedirects`.
    ///   - progress: `(received, total)` with `total` from `Content-Length` when announced; on the
    ///     transfer thread.
    ///   - inspect: sees every chunk of a 2xx body, in order, before it is written, on the transfer thread;
    ///     whatever it throws aborts the download and is rethrown unchanged.
    public func download(
        _ request: HTTPRequest, toFile path: String, sizeLimit: Int64? = nil, addressPolicy: AddressPolicy? = nil,
        progress: (@Sendable (_ received: Int64, _ total: Int64?) -> Void)? = nil,
        inspect: (@Sendable (_ chunk: UnsafeRawBufferPointer) throws -> Void)? = nil
    ) async throws -> HTTPResponse {
        var request = request
        request.body = nil
        let report: TransferSpec.Progress = progress.map { .download($0) } ?? .none
        var spec = spec(request, body: .none, sink: .file(path: path, limit: sizeLimit), progress: report)
        guard addressPolicy != nil || inspect != nil else { return try await run(spec, beforeStart: nil) }
        let check = DownloadGuard(policy: addressPolicy, inspector: inspect)
        spec.downloadGuard = check
        do {
            return try await run(spec, beforeStart: nil)
        } catch let error as HTTPTransportError {
            throw check.explain(error)
        }
    }

    private func spec(
        _ request: HTTPRequest, body: TransferSpec.Body, sink: TransferSpec.Sink, progress: TransferSpec.Progress
    ) -> TransferSpec {
        TransferSpec(
            request: request, body: body, sink: sink, progress: progress,
            stallTimeout: request.stallTimeout ?? configuration.stallTimeout,
            connectTimeout: configuration.connectTimeout, userAgent: configuration.userAgent,
            uploadBufferSize: configuration.uploadBufferSize,
            throttles: request.bandwidthTenant.map { bandwidth.limiters(for: $0) } ?? [])
    }

    private func run(_ spec: TransferSpec, beforeStart: (@Sendable () throws -> Void)?, capped: Bool = true) async throws -> HTTPResponse {
        try origins.validate(spec.request.url)
        try spec.request.validateHeaders()
        let capped = capped && !spec.request.onOwnSlot
        if capped { try await slots.acquire() }
        defer { if capped { slots.release() } }
        try beforeStart?()
        try Task.checkCancellation()
        // One loop (the default) needs no choosing, and no lock on every transfer's path.
        guard loops.count > 1 else { return try await loops[0].perform(spec) }
        let index = assigned.withLock { counts in
            let index = counts.indices.min { counts[$0] < counts[$1] } ?? 0
            counts[index] += 1
            return index
        }
        defer { assigned.withLock { $0[index] -= 1 } }
        return try await loops[index].perform(spec)
    }
}
