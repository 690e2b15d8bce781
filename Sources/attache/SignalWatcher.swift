import Dispatch
import Foundation

/// SIGTERM and SIGINT as callbacks: the first asks for a graceful stop, the second exits at once.
enum SignalWatcher {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// Unblocks SIGTERM and SIGINT for this thread and the threads it starts later.
    static func unblockTerminationSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Installs the handlers. Called once, from the main thread, before anything else runs.
    static func install(onFirst: @escaping @Sendable (Int32) -> Void) {
        let seen = SignalCount()
        for number in [SIGTERM, SIGINT] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if seen.next() == 1 {
                    onFirst(number)
                } else {
                    FileHandle.standardError.write(Data("attache: second signal, exiting now\n".utf8))
                    exit(128 + number)
                }
            }
            source.resume()
            sources.append(source)
        }
    }
}

/// Counts signals across both handlers.
private final class SignalCount: @unchecked Sendable {
    // Guarded by `lock`; the class is shared by the signal handlers only.
    private var count = 0
    private let lock = NSLock()

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count
    }
}
