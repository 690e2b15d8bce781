import CCurl
import CLinux
import Foundation
import Synchronization

/// The libcurl multi loop: one dedicated thread owns one multi handle and every easy handle on it.
///
/// One shared multi handle means one connection cache, so requests to the same host reuse connections.
/// Callers hand work over through a locked inbox and `curl_multi_wakeup`; the thread never blocks anywhere but
/// in `curl_multi_poll` (and in the brief file reads and writes of the body callbacks). A wake-up is a write to a
/// socket pair and an extra turn of the loop, so callers send one only while the thread sleeps, or is about to:
/// a thread that is awake takes the inbox before it next sleeps.
///
/// `@unchecked Sendable`: `multi` is used by the loop thread, except `curl_multi_wakeup` (documented thread-safe),
/// which a caller makes only after counting itself in ``waking`` under the inbox lock while `closed` is false
/// (``updateInbox(_:)``); the thread sets `closed` under that lock and cleans the handle up only once ``waking`` is
/// back to zero. `active` is
/// touched only by the loop thread. The rest is immutable, a lock or an `Atomic`.
final class CurlMultiLoop: @unchecked Sendable {
    private enum Command {
        case start(Transfer)
        case cancel(UInt64)
    }

    private struct Inbox {
        var commands: [Command] = []
        var stopping = false
        var closed = false
        /// Set by the thread, under the lock, after it found the inbox empty and before it polls; a caller that
        /// adds a command while it is set clears it and wakes the thread.
        var sleeping = false

        /// Adds a command; true when the thread must be woken to see it.
        mutating func post(_ command: Command) -> Bool {
            commands.append(command)
            defer { sleeping = false }
            return sleeping
        }
    }

    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())
    /// Callers between deciding to wake the thread (under the inbox lock) and having woken it (after): the wake-up is
    /// a write to a socket pair, and made under the lock it kept the lock held while the thread it woke came for it.
    private let waking = Atomic<Int>(0)
    private let nextID = Atomic<UInt64>(1)
    private let activeCount = Atomic<Int>(0)
    private let peakActiveCount = Atomic<Int>(0)
    private var active: [UInt64: Transfer] = [:]
    /// Easy handles of finished transfers, reused by the next ones: as many as the connections the loop keeps.
    let easyHandles: EasyHandlePool

    /// The longest the loop sleeps when nothing is due.
    private let idlePoll: Duration

    /// Creates the multi handle and starts the thread that owns it.
    ///
    /// - Parameters:
    ///   - idlePoll: the longest the thread sleeps when no transfer has a deadline. Correctness never depends on
    ///     it (work arrives with a wake-up); tests make it long to prove that.
    ///   - hostConnections: how many connections one host gets at once; the cache keeps two hosts' worth (the
    ///     storage a worker uploads to and the presign endpoint it calls) open for reuse. libcurl's default cache
    ///     follows the transfers attached at the moment (four each), so each lull closed connections the next
    ///     burst had to open again. Without the per-host cap, a burst of exchanges that do not wait for the
    ///     transfer cap (a presign call for each of hundreds of new jobs) opened a connection each, and all but a
    ///     cache's worth were closed as they finished: 2,377 connects for the small-file bench's 2,000 jobs.
    ///     Beyond the cap a request waits inside libcurl for a connection of its host to come free, and reuses it.
    init(idlePoll: Duration = .seconds(1), hostConnections: Int = 64) throws(HTTPTransportError) {
        guard CurlRuntime.isInitialized, let multi = curl_multi_init() else {
            throw HTTPTransportError(.transport, "libcurl could not create a multi handle", retryable: false)
        }
        _ = attache_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, hostConnections))
        _ = attache_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 2 * max(1, hostConnections))
        self.multi = multi
        self.idlePoll = idlePoll
        easyHandles = EasyHandlePool(capacity: 2 * max(1, hostConnections))
        let thread = Thread { [self] in
            // Named from inside: Foundation does not pass a name set before `start` on to the system thread.
            _ = attache_name_this_thread("attache-curl")
            run()
        }
        thread.name = "attache-curl"
        thread.start()
    }

    /// Transfers attached to the multi handle right now.
    var runningCount: Int { activeCount.load(ordering: .relaxed) }

    /// The most transfers ever attached at once, for checking the global cap.
    var peakRunningCount: Int { peakActiveCount.load(ordering: .relaxed) }

    /// Runs one transfer to completion; cancelling the calling task removes it from the loop at once.
    func perform(_ spec: TransferSpec) async throws -> HTTPResponse {
        let transfer = Transfer(id: nextID.wrappingAdd(1, ordering: .relaxed).oldValue, spec: spec)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.continuation = continuation
                // Checking cancellation under the inbox lock closes the race with the cancel handler: either it
                // enqueued its cancel before this check (then the flag is already set) or it comes after the start.
                var refusal: (any Error)?
                updateInbox { inbox in
                    if inbox.stopping {
                        refusal = HTTPTransportError(.shutDown, "the HTTP client is shut down", retryable: false)
                        return false
                    }
                    if Task.isCancelled {
                        refusal = CancellationError()
                        return false
                    }
                    return inbox.post(.start(transfer))
                }
                if let refusal {
                    transfer.continuation = nil
                    continuation.resume(throwing: refusal)
                }
            }
        } onCancel: {
            send(.cancel(transfer.id))
        }
    }

    /// Asks the thread to abort what is left, clean up and exit.
    func shutdown() {
        updateInbox { inbox in
            guard !inbox.stopping else { return false }
            inbox.stopping = true
            return true
        }
    }

    private func send(_ command: Command) {
        updateInbox { inbox in
            guard !inbox.closed else { return false }
            return inbox.post(command)
        }
    }

    /// Changes the inbox under its lock and, when `change` says the thread must be woken, wakes it once the lock is
    /// let go. `change` says so only while `closed` is false; the wake-up is counted in ``waking`` under the lock, so
    /// the thread, which sets `closed` under it, does not clean the handle up until the wake-up is made.
    private func updateInbox(_ change: (inout Inbox) -> Bool) {
        let wake = inbox.withLock { inbox in
            guard change(&inbox) else { return false }
            waking.add(1, ordering: .relaxed)
            return true
        }
        guard wake else { return }
        curl_multi_wakeup(multi)
        waking.subtract(1, ordering: .releasing)
    }

    // MARK: - The loop thread

    private func run() {
        while true {
            let (commands, stopping) = inbox.withLock { inbox in
                defer { inbox.commands.removeAll(keepingCapacity: true) }
                inbox.sleeping = false
                return (inbox.commands, inbox.stopping)
            }
            for command in commands { apply(command) }
            if stopping { break }

            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            collectCompletions()
            let wait = abortStalledTransfers(now: .now)
            // Commands posted since the inbox was taken were posted without a wake-up: take them before sleeping.
            let idle = inbox.withLock { inbox in
                inbox.sleeping = inbox.commands.isEmpty && !inbox.stopping
                return inbox.sleeping
            }
            if idle { _ = curl_multi_poll(multi, nil, 0, wait, nil) }
        }
        for transfer in Array(active.values) {
            abort(transfer, HTTPTransportError(.shutDown, "the HTTP client shut down", retryable: false))
        }
        inbox.withLock { inbox in
            for case .start(let transfer) in inbox.commands {
                transfer.finish(.failure(HTTPTransportError(.shutDown, "the HTTP client shut down", retryable: false)))
            }
            inbox.commands.removeAll()
            inbox.closed = true
        }
        // No wake-up is counted once `closed` is set; those already counted take a system call each to finish.
        while waking.load(ordering: .acquiring) != 0 { sched_yield() }
        curl_multi_cleanup(multi)
    }

    private func apply(_ command: Command) {
        switch command {
        case .start(let transfer):
            start(transfer)
        case .cancel(let id):
            if let transfer = active[id] { abort(transfer, CancellationError()) }
        }
    }

    private func start(_ transfer: Transfer) {
        do {
            try transfer.prepare(handles: easyHandles)
        } catch {
            transfer.finish(.failure(error))
            return
        }
        guard let easy = transfer.easy, curl_multi_add_handle(multi, easy.handle) == CURLM_OK else {
            transfer.finish(.failure(HTTPTransportError(.transport, "libcurl refused the transfer", retryable: true)))
            return
        }
        transfer.lastActivity = .now
        active[transfer.id] = transfer
        let count = activeCount.add(1, ordering: .relaxed).newValue
        peakActiveCount.max(count, ordering: .relaxed)
    }

    private func detach(_ transfer: Transfer) {
        if let easy = transfer.easy { curl_multi_remove_handle(multi, easy.handle) }
        if active.removeValue(forKey: transfer.id) != nil {
            activeCount.subtract(1, ordering: .relaxed)
        }
    }

    private func abort(_ transfer: Transfer, _ error: any Error) {
        detach(transfer)
        transfer.finish(.failure(error))
    }

    private func collectCompletions() {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            var context: UnsafeMutableRawPointer?
            _ = attache_curl_easy_getinfo_pointer(handle, CURLINFO_PRIVATE, &context)
            guard let context else { continue }
            complete(Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue(), code: code)
        }
    }

    private func complete(_ transfer: Transfer, code: CURLcode) {
        let result: Result<HTTPResponse, any Error>
        if let failure = transfer.failure {
            result = .failure(failure)
        } else if code != CURLE_OK {
            result = .failure(HTTPTransportError.curl(code, detail: transfer.easy?.errorDetail ?? "", transfer.spec))
        } else {
            result = transfer.makeResponse()
        }
        detach(transfer)
        transfer.finish(result)
    }

    /// Resumes transfers whose rate caps have bytes again and aborts those whose bytes stopped moving; returns how
    /// long to poll before the next deadline.
    private func abortStalledTransfers(now: ContinuousClock.Instant) -> Int32 {
        var nearest = now + idlePoll
        var stalled: [Transfer] = []
        for transfer in active.values {
            if let resumeAt = transfer.pausedUntil {
                if resumeAt <= now {
                    resume(transfer, now: now)
                } else {
                    nearest = min(nearest, resumeAt)
                    continue
                }
            }
            guard let deadline = transfer.stallDeadline else { continue }
            if deadline <= now {
                stalled.append(transfer)
            } else if deadline < nearest {
                nearest = deadline
            }
        }
        for transfer in stalled {
            let timeout = transfer.spec.stallTimeout ?? .zero
            abort(
                transfer,
                HTTPTransportError(
                    .stalled,
                    "no bytes moved for \(timeout) (\(transfer.spec.request.method) \(transfer.spec.request.redactedURL))",
                    retryable: true))
        }
        return Int32(clamping: Transfer.milliseconds(nearest - now))
    }

    /// Lets a transfer paused for its rate caps send again; its stall clock starts afresh. libcurl may call its
    /// read callback from inside `curl_easy_pause`, which may pause it again.
    private func resume(_ transfer: Transfer, now: ContinuousClock.Instant) {
        transfer.pausedUntil = nil
        transfer.lastActivity = now
        guard let easy = transfer.easy else { return }
        _ = curl_easy_pause(easy.handle, Int32(CURLPAUSE_CONT))
    }
}
