/// A long-running part of the worker, in the manner of swift-service-lifecycle's services: it runs until its work
/// ends, and returns soon after its `shutdown` signal fires, having finished or handed over what it had under way.
/// Graceful shutdown is that signal, not task cancellation: a service decides what "stopping" means for it (drain,
/// flush, leave the group), and its group decides when, in order.
protocol Service: Sendable {
    /// For the log.
    var name: String { get }
    func run(until shutdown: ShutdownSignal) async
}

/// Runs services side by side, listed in start order, and stops them in reverse, as swift-service-lifecycle's
/// `ServiceGroup` does: once the group's signal fires, each service in turn is told to stop, and the one before it
/// only once it returned — intake (started last) drains before the producer flushes, the producer flushes before the
/// consumer commits and leaves the group. The whole stop has one deadline, `grace` from when the signal fired: a
/// service still running then is cancelled and left behind, the next one is told to stop, and the group returns
/// once the others did.
struct ServiceGroup: Sendable {
    let services: [any Service]
    let logger: Logger
    /// The time the whole stop may take, asked when it begins; nil: as long as the services take.
    var grace: (@Sendable () -> Duration)?

    /// Returns when every service returned, after `shutdown` fired (or after all of them ended on their own).
    func run(until shutdown: ShutdownSignal) async {
        let stops = services.map { _ in ShutdownSignal() }
        let ended = services.map { _ in ShutdownSignal() }
        let stopped = ShutdownSignal()
        await withTaskGroup(of: Void.self) { group in
            for (index, service) in services.enumerated() {
                group.addTask {
                    await service.run(until: stops[index])
                    ended[index].request()
                }
            }
            group.addTask { [grace] in
                await shutdown.wait()
                let deadline = grace.map { ContinuousClock.now + $0() }
                for (index, service) in services.enumerated().reversed() {
                    logger.debug("stopping", ["service": service.name])
                    stops[index].request()
                    guard let deadline else {
                        await ended[index].wait()
                        continue
                    }
                    if await !ended[index].wait(upTo: max(.zero, deadline - ContinuousClock.now)) {
                        logger.warn("a service did not stop within the shutdown grace; it is cancelled",
                                    ["service": service.name])
                        ended[index].request()
                    }
                }
                stopped.request()
            }
            // A group whose services all ended by themselves is done without a signal.
            for index in services.indices { await ended[index].wait() }
            shutdown.request()
            await stopped.wait()
            // Whatever overran the deadline is called off; the others have returned.
            group.cancelAll()
        }
    }
}
