import Foundation
import TestSupport

/// Debian's kcat, a Kafka client we did not write, for producing jobs and reading topics.
enum Kcat {
    static let path = "/usr/bin/kcat"

    /// Produces `records` (key, value) to `topic`, into `partition` when given (else where the key hashes to);
    /// values are single-line JSON.
    static func produce(brokers: String, topic: String, partition: Int? = nil, _ records: [(key: String, value: String)]) async throws {
        let lines = records.map { "\($0.key)\t\($0.value)\n" }.joined()
        let into = partition.map { ["-p", String($0)] } ?? []
        let run = try await Subprocess.run(path, ["-b", brokers, "-t", topic] + into + ["-P", "-K", "\t", "-z", "none"],
                                           input: Data(lines.utf8))
        guard run.status == 0 else { throw EndToEndFailure("kcat produce failed: \(run.errorText)") }
    }

    /// Everything in `topic` so far, one entry per record: key, value and headers (`name=value,…`).
    static func consume(brokers: String, topic: String) async throws -> [(key: String, value: String, headers: String)] {
        // Fields separated by ASCII unit separators so JSON values cannot be confused with the framing.
        let text = try await readFromStart(brokers: brokers, topic: topic, format: ["-f", "%k\u{1F}%s\u{1F}%h\u{1E}"])
        return text.split(separator: "\u{1E}").compactMap { record in
            let fields = record.split(separator: "\u{1F}", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3 else { return nil }
            return (fields[0], fields[1], fields[2])
        }
    }

    /// Everything in `topic` so far as kcat's JSON envelopes, one line per record: topic, partition, offset, key,
    /// payload (null for a tombstone) and headers as `[name, value, …]` — exact where the framing of `consume` is not.
    static func envelopes(brokers: String, topic: String) async throws -> [String] {
        try await readFromStart(brokers: brokers, topic: topic, format: ["-J"]).split(separator: "\n").map(String.init)
    }

    /// kcat's output for everything in `topic` so far (or in one of its partitions), printed as `format` says.
    static func readFromStart(brokers: String, topic: String, partition: String? = nil, format: [String]) async throws -> String {
        let only = partition.map { ["-p", $0] } ?? []
        let run = try await Subprocess.run(path, ["-b", brokers, "-t", topic] + only + ["-C", "-o", "beginning", "-e", "-q"] + format)
        return run.outputText
    }
}
