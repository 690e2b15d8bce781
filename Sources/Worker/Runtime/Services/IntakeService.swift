/// Takes job records in until shutdown, then drains (DESIGN §4 *Shutdown*): intake stops, batches in flight get
/// `worker.shutdownGrace` to finish (none after a fatal error: nothing more can be vouched for, and the replay redoes
/// the work), the rest are abandoned uncommitted, and the batches' last snapshots are written — all within the
/// shutdown's budget, so a snapshot that can no longer be delivered never holds the process up.
struct IntakeService: Service {
    let intake: JobIntake
    let registry: BatchRegistry
    let durable: DurableState?
    /// The partitions held now.
    let assignment: @Sendable () -> Set<Int32>
    /// `worker.shutdownGrace`, or zero after a fatal error.
    let grace: @Sendable () -> Duration
    /// The shutdown's time, counted from when it started.
    let budget: @Sendable () -> ShutdownBudget
    let health: WorkerHealth
    let logger: Logger

    var name: String { "intake" }

    func run(until shutdown: ShutdownSignal) async {
        // Not a child task: the loop may be waiting for a partition's restore, and the drain must not wait for it.
        // Once cancelled it takes no more records; the consumer's close ends it for good.
        let loop = Task { await intake.consume() }
        intake.throttle.recheck()
        await shutdown.wait()
        health.markReady(false, reason: "shutting down")
        let budget = budget()
        let grace = budget.forInFlightWork(atMost: grace())
        logger.info("shutting down: draining in-flight batches", ["grace": "\(grace)"])
        intake.stop()
        if await !intake.drain(within: grace) {
            logger.warn("grace period over: abandoning unfinished batches (their jobs will be replayed)")
            registry.abandon(partitions: assignment())
        }
        if let durable {
            let partitions = assignment()
            do { try await budget.run { await durable.state.flush(partitions: partitions) } } catch {
                logger.warn("last batch snapshots not written: their batches resume from earlier ones", ["error": "\(error)"])
            }
        }
        loop.cancel()
    }
}
