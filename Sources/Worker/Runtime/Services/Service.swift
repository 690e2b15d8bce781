/// A long-running part of the worker, in the manner of swift-service-lifecycle's services: it runs until its work
/// ends, and returns soon after its `shutdown` signal fires, having finished or handed over what it had under way.
/// Graceful shutdown is that signal, not task cancellation: a service decides what "stopping" means for it (drain,
/// flush, leave the group), and its group decides when, in order.
protocol Service: Sendable {
    /// For the log.
    var name: String { get }
    func run(until shutdown: ShutdownSignal) async
}

/// Runs services side by side and stops them in order: once the group's signal fires, each service in turn is told
/// to stop, and the next one only once it returned — intake drains before the producer flushes, the producer flushes
/// before the consumer commits and leaves the group.
struct ServiceGroup: Sendable {
    let services: [any Service]
    let logger: Logger

    /// Returns when every service returned, after `shutdown` fired (or after all of them ended on their own).
    func run(until shutdown: ShutdownSignal) async {
        let stops = services.map { _ in ShutdownSignal() }
        let ended = services.map { _ in ShutdownSignal() }
        await withTaskGroup(of: Void.self) { group in
            for (index, service) in services.enumerated() {
                group.addTask {
                    await service.run(until: stops[index])
                    ended[index].request()
                }
            }
            group.addTask {
                await shutdown.wait()
                for (index, service) in services.enumerated() {
                    logger.debug("stopping", ["service": service.name])
                    stops[index].request()
                    await ended[index].wait()
                }
            }
            // A group whose services all ended by themselves is done without a signal.
            for index in services.indices { await ended[index].wait() }
            shutdown.request()
        }
    }
}
