import Foundation
import KafkaIO
import Records
import Synchronization
import UploadEngine

/// A worker process's main loop: jobs in from Kafka, batches through the registry, events and dead letters out,
/// offsets committed as records settle, intake paused under load, and a graceful drain on shutdown.
public final class KafkaWorker: Sendable {
    public let configuration: AttacheConfiguration
    public let metrics: WorkerMetrics
    /// What `/healthz` and `/readyz` report.
    public let health = WorkerHealth()
    let logger: Logger
    let workerId: String
    private let fatal = Mutex<String?>(nil)
    private let kafkaWarnings = LogThrottle()

    /// Job topics are created with this many partitions when missing: enough for a handful of workers to share.
    static let jobPartitions = 6

    public init(configuration: AttacheConfiguration, logger: Logger, metrics: WorkerMetrics = WorkerMetrics()) {
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        self.workerId = configuration.worker.id.isEmpty
            ? "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)" : configuration.worker.id
        metrics.registry.set(WorkerMetrics.startTime, Date().timeIntervalSince1970)
        metrics.declareTenants(Set(configuration.worker.tenantWeights.keys))
    }

    /// Runs until `shutdown` is requested, then drains and closes within `worker.shutdownGrace` (``ShutdownBudget``)
    /// and returns. Throws ``WorkerFailure`` after a fatal error (a fatal Kafka error, an event or snapshot that cannot
    /// be delivered), once the worker stopped; throws at once when a component cannot start.
    public func run(shutdown: ShutdownSignal, onReady: (@Sendable () -> Void)? = nil) async throws {
        MemoryRelease.configureAllocator()
        let kafka = configuration.kafkaConfiguration(clientID: workerId) { [logger] line in
            logger.debug(line.message, ["facility": line.facility])
        }
        // Before subscribing, so the first assignment finds the topics; bounded, since a cluster without the admin
        // API (or a slow controller) must not hold intake up for long.
        try await ChangelogTopic.provision(configuration, kafka: kafka, logger: logger, newTopicPartitions: Self.jobPartitions)
        var components = try await WorkerComponents.make(configuration: configuration, metrics: metrics)
        var eventsKafka = kafka
        // An event of events.maxBytes, with its key and headers, must be one the producer accepts.
        if eventsKafka.properties["message.max.bytes"] == nil, configuration.events.maxBytes + 64 * 1024 > 1_000_000 {
            eventsKafka.properties["message.max.bytes"] = String(configuration.events.maxBytes + 64 * 1024)
        }
        let producer = try KafkaProducer(configuration: eventsKafka)
        let health = self.health
        let publisher = KafkaEventPublisher(producer: producer, topic: configuration.kafka.eventsTopic,
                                            encoder: CloudEventEncoder(workerId: workerId, maxBytes: configuration.events.maxBytes), logger: logger) { [self] reason in
            fail("events could not be delivered: \(reason)", shutdown: shutdown)
        }
        let metrics = self.metrics
        let durable = try configuration.state.durable
            ? DurableState.open(configuration: configuration, kafka: kafka, producer: producer, logger: logger, metrics: metrics,
                                writer: workerId,
                                eventsDelivered: { publisher.whenSettled($0) },
                                onLoss: { [self] reason in fail("batch state could not be recorded: \(reason)", shutdown: shutdown) })
            : nil
        if let durable { components.readInlineBytes(from: durable.reader, topic: configuration.kafka.jobsTopic) }
        let runners = components
        var dependencies = BatchRegistry.Dependencies(
            makeRunner: { runners.makeRunner($0, poster: $1) },
            publisher: MeteredPublisher(inner: publisher, metrics: metrics),
            sender: components.sender(configuration: configuration, producer: producer), logger: logger)
        if let durable { dependencies.durability = durable.state }
        let registry = BatchRegistry(configuration: configuration.engine, dependencies: dependencies)
        let applying = ApplyGate()
        let open = OpenRecords()
        let revokeGrace = configuration.effectiveRevokeGrace
        if revokeGrace < configuration.worker.revokeGrace {
            logger.warn("worker.revokeGrace shortened to two thirds of session.timeout.ms", ["revokeGrace": "\(revokeGrace)"])
        }
        let logger = self.logger
        let restores = durable.map { durable in
            RestoreGate { [self] partition in
                do {
                    let started = ContinuousClock.now
                    let outcome = try await metrics.timingRestore { try await durable.restore.restore(partition: partition) }
                    // Revoked meanwhile: its batches are the next owner's to resume.
                    try Task.checkCancellation()
                    registry.resume(outcome.pending, partition: partition)
                    logger.info("partition restored", ["partition": String(partition), "recordsRead": String(outcome.recordsRead),
                                                       "resumed": String(outcome.pending.count), "fenced": String(outcome.fenced),
                                                       "rebuilt": String(outcome.rebuilt), "took": "\(ContinuousClock.now - started)"])
                    metrics.registry.increment(WorkerMetrics.changelogRecordsRestored, by: Double(outcome.recordsRead))
                    return true
                } catch where Task.isCancelled {
                    logger.info("partition restore called off: the partition was revoked", ["partition": String(partition)])
                    return false
                } catch {
                    // An assignment that arrives while the worker closes (its store already shut) is not applied
                    // anyway: the partition's next owner restores it.
                    if shutdown.isRequested {
                        logger.info("partition not restored: the worker is stopping", ["partition": String(partition)])
                        return false
                    }
                    metrics.restoreFailed()
                    fail("restoring the batches of partition \(partition) failed: \(error)", shutdown: shutdown)
                    return false
                }
            }
        }
        // The poll thread waits for the revoke hook a little longer than the grace the hook itself keeps.
        let options = KafkaConsumerOptions(revokeTimeout: revokeGrace + .seconds(5))
        let consumer = try KafkaConsumer(configuration: kafka, topics: [configuration.kafka.jobsTopic], options: options) { revoked, lost in
            // The consumer has already marked the partitions revoking, so no record of theirs starts applying now:
            // wait for those under way, then give the partitions' work up to worker.revokeGrace. With durable state
            // only what is in flight gets it — queued files go to the new owner with the snapshots, so the member
            // rejoins the group quickly and an upload under way is not cut off for a file that never started. In
            // memory only, whole batches may settle (their records are then committed with the revoke). Lost
            // partitions may be another member's already: nothing to wait for.
            let partitions = Set(revoked.map(\.partition))
            let started = ContinuousClock.now
            // Finished once the partitions are let go, however long after the consumer stopped waiting for it: their
            // next restore waits for it.
            let handover = await restores?.cancel(partitions)
            defer { handover?.finish() }
            await applying.quiesce()
            let settled: Bool
            var unfinished = 0
            if lost {
                settled = false
            } else if durable != nil {
                unfinished = await registry.holdForHandover(partitions: partitions, timeout: revokeGrace)
                settled = unfinished == 0
            } else {
                settled = await open.waitUntilEmpty(partitions, timeout: revokeGrace)
            }
            registry.abandon(partitions: partitions)
            // What is still in flight was snapshotted as pending as it changed; the last snapshots go out before the
            // partitions do, and the new owner resumes from them.
            await durable?.release(partitions, flushing: !lost, keepingRows: shutdown.isRequested)
            if !lost {
                logger.info(settled ? "revoked partitions settled; handing them over"
                                    : "revoke grace over: handing unfinished uploads over (the new owner starts them again, a multipart upload from the parts stored)",
                            ["partitions": revoked.map(\.description).joined(separator: ","),
                             "waited": "\(ContinuousClock.now - started)", "batchesUnfinished": String(unfinished)])
            }
        }
        let shares = components.shares
        let storage = components.storage
        let namedTenants = Set(configuration.worker.tenantWeights.keys)
        let admin = try AdminServer(listen: configuration.adminListen, health: health, metrics: metrics.registry) {
            metrics.refresh(ScrapeReading(
                consumerLag: consumer.lag(), partitions: consumer.progress(), inFlightBatches: registry.busyBatchCount,
                inFlightTransfers: shares.heldCount + shares.waitingFiles,
                cachedBatches: registry.batchCount + (durable?.state.cachedCount ?? 0),
                eventsDelivered: publisher.deliveries.load(ordering: .relaxed), eventsPending: publisher.pendingCount,
                snapshotsPending: durable?.state.pendingCount ?? 0, healthy: health.isLive, ready: health.isReady))
            metrics.refreshTenants(shares.tenantLoads, named: namedTenants)
        }
        defer { admin.stop() }
        logger.info("admin endpoints listening", ["listen": configuration.adminListen, "port": String(admin.port)])
        let deadLetters = try KafkaProducer(configuration: DeadLetterProducer.configuration(from: kafka))
        let intake = JobIntake(configuration: configuration, registry: registry, consumer: consumer, deadLetters: deadLetters,
                               publisher: publisher, metrics: metrics, logger: logger, applying: applying, open: open,
                               restores: restores, queuedFiles: { shares.waitingFiles })
        // Backpressure follows the counts it watches: both tell it when they change.
        registry.onBusyChange { intake.throttle.recheck() }
        // A store that refuses writes holds intake and readiness until it takes them again (§4.1 *Store failures*).
        durable?.state.onStoreBlocked { [health] blocked in
            health.markHeld(blocked ? "the local batch store cannot be written" : nil)
            intake.throttle.recheck()
        }
        shares.onQueueMarkCrossed { intake.throttle.recheck() }
        health.markLive()
        health.markReady(false, reason: "no partitions assigned")

        let assignment = { @Sendable in Set(consumer.assignment.map(\.partition)) }
        // One budget for the whole shutdown, counted from when it started (a signal or a fatal error).
        let shutdownGrace = configuration.worker.shutdownGrace
        let budget = { @Sendable in ShutdownBudget(grace: shutdownGrace, startedAt: shutdown.requestedAt ?? Date()) }
        // In start order; they stop in reverse: intake drains first, then the sweepers, then the Kafka clients flush,
        // commit and leave.
        var services: [any Service] = [
            KafkaClientsService(consumer: consumer, producer: producer, deadLetters: deadLetters, durable: durable, budget: budget,
                                onConsumerEvent: { [self] event in
                                    handle(event, consumer: consumer, restores: restores, shutdown: shutdown, onReady: onReady)
                                },
                                onProducerError: { [self] error in
                                    report(error, from: "producer")
                                    if error.isFatal { fail("producer: \(error.description)", shutdown: shutdown) }
                                }, logger: logger),
            Sweeper(registry: registry, durable: durable, batchTTL: configuration.worker.batchTTL,
                    retainFailed: configuration.staging.retainFailed, assignment: assignment),
        ]
        if let storage, let interval = configuration.storage.sweepInterval {
            services.append(StorageSweeper(storage: storage, interval: interval, registry: registry, durable: durable,
                                           assignment: assignment, logger: logger))
        }
        services.append(IntakeService(intake: intake, registry: registry, durable: durable, assignment: assignment,
                                      grace: { [self] in fatal.withLock { $0 } == nil ? shutdownGrace : .zero }, budget: budget,
                                      health: health, logger: logger))
        // Every step bounds itself by the budget; the group's deadline is the backstop, just past it and well before
        // the command's watchdog (grace + 5 s).
        let group = ServiceGroup(services: services, logger: logger, grace: { budget().remaining + .seconds(2) })
        await group.run(until: shutdown)
        if let reason = fatal.withLock({ $0 }) { throw WorkerFailure(reason: reason) }
    }

    /// What the worker does with an event of its group membership.
    private func handle(_ event: KafkaConsumerEvent, consumer: KafkaConsumer, restores: RestoreGate?, shutdown: ShutdownSignal,
                        onReady: (@Sendable () -> Void)?) {
        switch event {
        case .assigned(let partitions):
            logger.info("partitions assigned", ["partitions": partitions.map(\.description).joined(separator: ",")])
            for partition in partitions {
                if let assignment = consumer.assignmentGeneration(of: partition) {
                    restores?.begin(partition.partition, assignment: assignment)
                }
            }
            health.markReady(true)
            onReady?()
        case .revoked(let partitions), .lost(let partitions):
            if case .lost = event {
                logger.warn("partitions lost (dropped from the group); their work is left to the new owner",
                            ["partitions": partitions.map(\.description).joined(separator: ",")])
            } else {
                logger.info("partitions released", ["partitions": partitions.map(\.description).joined(separator: ",")])
            }
            if consumer.assignment.isEmpty { health.markReady(false, reason: "no partitions assigned") }
        case .error(let error):
            report(error, from: "consumer")
            if error.isFatal { fail(error.description, shutdown: shutdown) }
        }
    }

    /// Logs a client error by what it means for the worker: errors the client recovers from by itself (brokers
    /// restarting, leaders and the coordinator moving, rebalances) are warnings, one line per code per window with a
    /// count of the rest; anything else is an error.
    private func report(_ error: KafkaError, from client: String) {
        guard error.isTransient else {
            logger.error("kafka error", ["client": client, "error": error.description])
            return
        }
        let (admitted, suppressed) = kafkaWarnings.admit("\(client) \(error.code.rawValue)")
        guard admitted else { return }
        var fields = ["client": client, "error": error.description]
        if suppressed > 0 { fields["suppressed"] = String(suppressed) }
        logger.warn("kafka trouble the client is recovering from", fields)
    }

    /// A fatal condition: health fails at once and the worker stops without committing what it cannot vouch for.
    private func fail(_ reason: String, shutdown: ShutdownSignal) {
        let first = fatal.withLock { fatal in
            defer { if fatal == nil { fatal = reason } }
            return fatal == nil
        }
        guard first else { return }
        logger.error("fatal: stopping", ["reason": reason])
        health.markFailed(reason: reason)
        shutdown.request()
    }
}
