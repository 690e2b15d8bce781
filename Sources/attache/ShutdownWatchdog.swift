import Foundation
import Worker

/// The worker command's last resort (DESIGN §4: a fatal error ends the process within `worker.shutdownGrace`, never
/// a wedged worker): once a shutdown started, a process still alive when its grace and ``slack`` have passed logs
/// an error and exits with ``exitStatus``, whatever step of the shutdown is stuck.
enum ShutdownWatchdog {
    /// Time past the grace for the steps after the drain to finish and the process to end.
    static let slack: Duration = .seconds(5)
    /// A stop that did not finish: non-zero, like a fatal error, so a supervisor restarts the worker.
    static let exitStatus: Int32 = 1

    /// Arms the watchdog when `shutdown` is requested (at once if it was already).
    static func arm(on shutdown: ShutdownSignal, grace: Duration, logger: Logger) {
        let limit = grace + slack
        shutdown.whenRequested {
            // A thread of its own, not a task: it must fire even when every thread of the cooperative pool is stuck.
            let thread = Thread {
                Thread.sleep(forTimeInterval: limit.timeInterval)
                logger.error("shutdown did not finish in time: exiting now", ["limit": "\(limit)"])
                exit(exitStatus)
            }
            thread.name = "shutdown-watchdog"
            thread.start()
        }
    }
}
