import Dispatch
import Foundation

/// SIGTERM and SIGINT as an `AsyncStream` of signal numbers: the first asks for a graceful stop, a second exits at
/// once (DESIGN §4 *Shutdown*).
enum TerminationSignals {
    /// Unblocks SIGTERM and SIGINT for this thread and the threads it starts later: a parent may hand them over
    /// blocked (some launchers and test runners do).
    static func unblock() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// The signals as they arrive. Their default action (ending the process) is off from now on; the dispatch
    /// sources that catch them live as long as the stream.
    static func stream() -> AsyncStream<Int32> {
        AsyncStream { continuation in
            let sources = SignalSources(numbers: [SIGTERM, SIGINT]) { continuation.yield($0) }
            continuation.onTermination = { _ in sources.cancel() }
        }
    }

    /// Calls `onFirst` for the first signal and exits with 128 + the signal's number on the second — or on the first,
    /// when `alreadyStopping` says a stop began without a signal (a fatal error): that signal is a second request to
    /// stop. The task ends with the process.
    @discardableResult
    static func watch(alreadyStopping: @escaping @Sendable () -> Bool = { false },
                      onFirst: @escaping @Sendable (Int32) -> Void) -> Task<Void, Never> {
        let signals = stream()
        return Task {
            var seen = 0
            for await number in signals {
                seen += 1
                guard seen > 1 || alreadyStopping() else {
                    onFirst(number)
                    continue
                }
                FileHandle.standardError.write(Data("attache: second signal, exiting now\n".utf8))
                exit(128 + number)
            }
        }
    }
}

/// The dispatch sources of a stream of signals.
private final class SignalSources: @unchecked Sendable {
    // Written once in init; `cancel` only calls the sources' own thread-safe `cancel`.
    private let sources: [DispatchSourceSignal]

    init(numbers: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        sources = numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    func cancel() {
        sources.forEach { $0.cancel() }
    }
}
