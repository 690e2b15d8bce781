import Foundation
import Worker

/// `attache worker`: loads the configuration, runs a worker until SIGTERM/SIGINT, exits 0 after a clean drain and 1
/// after a fatal error. Either way the process ends: a second signal exits at once, and ``ShutdownWatchdog`` exits
/// when the stop takes longer than `worker.shutdownGrace` and its slack.
enum WorkerCommand {
    static func run(configFile: String?) async -> Int32 {
        let configuration: AttacheConfiguration
        do {
            configuration = try ConfigurationLoader.load(file: configFile)
        } catch {
            FileHandle.standardError.write(Data("attache worker: \(error)\n".utf8))
            return 2
        }
        let logger = Logger(level: configuration.log.level, format: configuration.log.format)
        let shutdown = ShutdownSignal()
        TerminationSignals.watch(alreadyStopping: { shutdown.isRequested }) { number in
            logger.info("signal received, stopping", ["signal": String(number)])
            shutdown.request()
        }
        ShutdownWatchdog.arm(on: shutdown, grace: configuration.worker.shutdownGrace, logger: logger)
        let worker = KafkaWorker(configuration: configuration, logger: logger)
        do {
            logger.info("worker starting", ["brokers": configuration.kafka.brokers, "group": configuration.kafka.groupId,
                                            "topic": configuration.kafka.jobsTopic])
            try await worker.run(shutdown: shutdown)
            logger.info("worker stopped")
            return 0
        } catch {
            logger.error("worker failed", ["error": "\(error)"])
            return 1
        }
    }
}
