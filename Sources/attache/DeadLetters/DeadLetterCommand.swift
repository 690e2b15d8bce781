import Foundation
import KafkaIO
import OperatorTools
import Records

/// `attache dlq list|replay [--since TIME] [--match TEXT] [--limit N] [--yes]`: the dead-letter topic, read outside
/// any group; `replay` produces the chosen records again to the jobs topic.
enum DeadLetterCommand {
    static let usage = """
    usage: attache dlq list|replay [--since TIME] [--match TEXT] [--limit N] [--yes] [--config FILE]

    Reads the dead-letter topic (kafka.dlqTopic) to its end, outside any consumer group, and takes the records chosen
    by the options, oldest first.

    list     each dead letter: its partition/offset and time, the record it came from (attache.source.* headers),
             its key, the worker's error (attache.error) and a preview of the value
    replay   lists them, asks for confirmation (unless --yes), then produces each again to the jobs topic with its
             original key, value and headers, the attache.* provenance headers dropped. Exits 1 when not confirmed
             or a record could not be produced

    options:
      --since TIME   only dead letters written at or after TIME: RFC 3339 (2026-12-01T17:00:00Z) or a duration back
                     from now (30m, 2h)
      --match TEXT   only those whose key, value, error or source contains TEXT (ignoring case)
      --limit N      at most N dead letters (the oldest chosen)
      --yes          replay: no confirmation
      --config FILE  the JSON configuration file (kafka.*, ATTACHE_KAFKA_*)
    """

    static let flags = ["since": true, "match": true, "limit": true, "yes": false, "config": true]

    static func run(_ arguments: CommandLineArguments) async -> Int32 {
        guard arguments.positionals.count == 1, let action = arguments.positionals.first, ["list", "replay"].contains(action) else {
            return Console.usageError("dlq", "expected list or replay")
        }
        let options = arguments.options
        if action == "list", options["yes"] != nil { return Console.usageError("dlq", "--yes is for replay") }
        let selection: DeadLetterSelection
        do {
            selection = try DeadLetterSelection(since: options["since"], match: options["match"], limit: options["limit"])
        } catch {
            return Console.usageError("dlq", error.description)
        }
        guard let client = ClientConfiguration.load(command: "dlq", file: options["config"]) else { return 2 }
        let topic = client.configuration.kafka.dlqTopic
        let letters: [DeadLetter]
        do {
            letters = selection.choose(from: try await TopicSnapshot.records(of: topic, kafka: client.kafka(clientID: "attache-dlq"))
                .map(DeadLetter.init))
        } catch let missing as TopicSnapshot.TopicMissing {
            Console.error("dlq", "\(missing) (no dead letter was ever written)")
            return action == "list" ? 0 : 1
        } catch {
            Console.error("dlq", "could not read \(topic): \(error)")
            return 1
        }
        for letter in letters { Console.output(letter.listing) }
        Console.output("\(letters.count) dead letter\(letters.count == 1 ? "" : "s") in \(topic)")
        guard action == "replay", !letters.isEmpty else { return 0 }
        let jobs = client.configuration.kafka.jobsTopic
        if options["yes"] == nil {
            FileHandle.standardOutput.write(Data("replay \(letters.count) to \(jobs)? [y/N] ".utf8))
            guard let answer = readLine(), ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
                Console.output("nothing replayed")
                return 1
            }
        }
        do {
            let reports = try await client.produce(letters.map { $0.replay(to: jobs) }, command: "dlq")
            Console.output("replayed \(reports.count) to \(jobs)")
            return 0
        } catch {
            Console.error("dlq", "could not replay: \(error)")
            return 1
        }
    }
}
