import Foundation

/// Debian's kcat, a Kafka client we did not write, for producing jobs and reading topics.
///
/// kcat runs are waited for on a dispatch queue, never on Swift's cooperative pool, which other suites share.
enum Kcat {
    static let path = "/usr/bin/kcat"
    private static let queue = DispatchQueue(label: "e2e.kcat", attributes: .concurrent)

    private static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    static func produce(brokers: String, topic: String, _ records: [(key: String, value: String)]) async throws {
        let records = records.map { KeyedValue(key: $0.key, value: $0.value) }
        try await offPool { try produceBlocking(brokers: brokers, topic: topic, records.map { ($0.key, $0.value) }) }
    }

    static func consume(brokers: String, topic: String) async throws -> [(key: String, value: String, headers: String)] {
        try await offPool { try consumeBlocking(brokers: brokers, topic: topic).map { Consumed(key: $0.key, value: $0.value, headers: $0.headers) } }
            .map { ($0.key, $0.value, $0.headers) }
    }

    /// Everything in `topic` so far as kcat's JSON envelopes, one line per record: topic, partition, offset, key,
    /// payload (null for a tombstone) and headers as `[name, value, …]` — exact where the framing of `consume` is not.
    static func envelopes(brokers: String, topic: String) async throws -> [String] {
        try await offPool {
            String(decoding: try readFromStart(brokers: brokers, topic: topic, format: ["-J"]), as: UTF8.self)
                .split(separator: "\n").map(String.init)
        }
    }

    /// kcat's output for everything in `topic` so far, printed as `format` says.
    private static func readFromStart(brokers: String, topic: String, format: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-b", brokers, "-t", topic, "-C", "-o", "beginning", "-e", "-q"] + format
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }

    private struct KeyedValue: Sendable { let key: String; let value: String }
    private struct Consumed: Sendable { let key: String; let value: String; let headers: String }

    /// Produces `records` (key, value) to `topic`; values are single-line JSON.
    private static func produceBlocking(brokers: String, topic: String, _ records: [(key: String, value: String)]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-b", brokers, "-t", topic, "-P", "-K", "\t", "-z", "none"]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let lines = records.map { "\($0.key)\t\($0.value)\n" }.joined()
        input.fileHandleForWriting.write(Data(lines.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw EndToEndFailure("kcat produce failed: \(message)")
        }
    }

    /// Everything in `topic` so far, one entry per record: key, value and headers (`name=value,…`).
    private static func consumeBlocking(brokers: String, topic: String) throws -> [(key: String, value: String, headers: String)] {
        // Fields separated by ASCII unit separators so JSON values cannot be confused with the framing.
        let data = try readFromStart(brokers: brokers, topic: topic, format: ["-f", "%k\u{1F}%s\u{1F}%h\u{1E}"])
        return String(decoding: data, as: UTF8.self).split(separator: "\u{1E}").compactMap { record in
            let fields = record.split(separator: "\u{1F}", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3 else { return nil }
            return (fields[0], fields[1], fields[2])
        }
    }
}
