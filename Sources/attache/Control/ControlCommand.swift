import Foundation
import KafkaIO
import OperatorTools
import Records

/// `attache control retry|remove|clear|send|configure --batch ID [--file ID] [--concurrency N]`: produces one control
/// record (DESIGN §2.1) to the jobs topic, keyed by the batch id.
enum ControlCommand {
    static let usage = """
    usage: attache control retry|remove|clear|send|configure --batch ID [--file ID] [--concurrency N] [--config FILE]

    Produces one control record to the jobs topic, keyed by the batch id (so it reaches the worker owning the batch),
    and prints where it was stored. Exits 0 once the cluster took it, 1 when it could not, 2 on usage errors.

      retry      --batch ID --file ID       upload a failed file again
      remove     --batch ID --file ID       abort or drop one file
      clear      --batch ID                 abort everything and drop the batch
      send       --batch ID                 send the uploaded, not yet sent attachments now
      configure  --batch ID --concurrency N files of the batch uploading at once (1 to 1000)

    options:
      --config FILE   the JSON configuration file (Kafka settings: kafka.*, ATTACHE_KAFKA_*)
    """

    static let flags = ["batch": true, "file": true, "concurrency": true, "config": true]

    static func run(_ arguments: CommandLineArguments) async -> Int32 {
        guard arguments.positionals.count == 1, let kind = arguments.positionals.first else {
            return Console.usageError("control", "expected one of retry, remove, clear, send, configure")
        }
        let control: ControlRecord
        do {
            control = try ControlRecord(kind: kind, batchId: arguments.options["batch"], fileId: arguments.options["file"],
                                        concurrency: arguments.options["concurrency"])
        } catch {
            return Console.usageError("control", error.description)
        }
        guard let client = ClientConfiguration.load(command: "control", file: arguments.options["config"]) else { return 2 }
        let topic = client.configuration.kafka.jobsTopic
        do {
            let record = KafkaProducerRecord(topic: topic, key: Data(control.key), value: Data(control.value))
            let reports = try await client.produce([record], command: "control")
            let stored = reports.first.map { "\($0.topic)/\($0.partition)/\($0.offset)" } ?? topic
            Console.output("\(control.kind.rawValue) for batch \(control.batchId) produced to \(stored)")
            return 0
        } catch {
            Console.error("control", "could not produce the record: \(error)")
            return 1
        }
    }
}
