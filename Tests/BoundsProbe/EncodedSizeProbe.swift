import Foundation
import KafkaIO
import Records
import UploadEngine
import Worker

/// Runs a jobs-topic record through what the worker does with it — the decoder, then the engine with every
/// collaborator answering at once — and measures every event record and every batch snapshot it leads to, for the
/// contract that no accepted record can make one that does not fit `events.maxBytes` (DESIGN §2.1 "Bounds").
///
/// Shared by a unit test (the worst case, deterministically) and a fuzz target (jobs built from the fuzzer's bytes).
/// Events are encoded with no budget, so a measure is what the event really takes, not what summarising left of it.
public struct EncodedSizeProbe: Sendable {
    /// One thing the record led to and the bytes it takes.
    public struct Measure: Sendable, CustomStringConvertible {
        /// The event type, `snapshot`, or `snapshot (did not fit)`.
        public var what: String
        /// For an event: its record's key, value and headers; for a snapshot, its bytes (`Int.max` if it did not fit).
        public var bytes: Int
        public var description: String { "\(what): \(bytes) bytes" }
    }

    /// How the collaborators answer, so that a run reaches rejections, failures and messages as well as uploads.
    public struct Answers: Sendable {
        /// Whether the `n`th upload attempt (0-based, over the run) fails: by default three in four, so some files
        /// give up their retries.
        public var uploadFails: @Sendable (Int) -> Bool = { $0 % 4 != 0 }
        /// Whether the presign service refuses the `n`th file it is asked about.
        public var presignRefuses: @Sendable (Int) -> Bool = { $0 % 7 == 3 }
        /// Whether the `n`th message post fails: by default every other one, the first included.
        public var postFails: @Sendable (Int) -> Bool = { $0 % 2 == 0 }
        /// The default answers.
        public init() {}
    }

    /// The limits the decoder and the engine run with.
    public let limits: UploadLimits
    /// The budget snapshots are encoded within (`events.maxBytes`).
    public let maxBytes: Int
    private let decoder: JobDecoder
    /// No budget: an event is measured whole.
    private let encoder = CloudEventEncoder(workerId: String(repeating: "w", count: 255), maxBytes: .max)
    /// A dead-letter topic's refusal as long as the worker keeps one, of characters that escape in JSON.
    private static let longRefusal = String(repeating: "\"", count: WireError.messageLimit)

    /// A probe at the given limits, the defaults unless said otherwise.
    public init(limits: UploadLimits = UploadLimits(), maxBytes: Int = CloudEventEncoder.defaultMaxBytes) {
        self.limits = limits
        self.maxBytes = maxBytes
        decoder = JobDecoder(limits: limits)
    }

    /// What a run of records led to.
    public struct Report: Sendable {
        /// Every event record and snapshot, in order.
        public var measures: [Measure] = []
        /// The whole result of each batch the records made, at the end.
        public var results: [String: UploadResult] = [:]

        /// The measures over `maxBytes`.
        public func oversized(than maxBytes: Int) -> [Measure] { measures.filter { $0.bytes > maxBytes } }
    }

    /// Decodes the records, in order, and runs what they ask for; reports every measure taken.
    ///
    /// A record the decoder refuses leads to its `attache.job.invalid` event only. An upload job is applied to its
    /// batch (made by the first job that names it) and the batch driven until it is quiet. Then the first job is
    /// applied again, as a redelivery (its live files are rejected as duplicates, its refused ones once more), and
    /// every batch gets a `send` control, so the batches end with the most rejections they keep and with sent and
    /// failed messages. Controls lead to nothing here.
    public func run(_ records: [JobSpec], answers: Answers = Answers()) -> Report {
        var report = Report()
        var batches: [String: ImmediateCollaborators] = [:]
        var jobs: [UploadJob] = []
        for (offset, spec) in records.enumerated() {
            let provenance = JobDecoder.Provenance(topic: "attache.jobs", partition: 5, offset: (1 << 40) + Int64(offset), key: spec.key)
            switch decoder.decode(spec.value, headers: spec.headers, from: provenance) {
            case .failure(let invalid):
                // A dead-letter topic's refusal is quoted in the event too.
                let event = WorkerEvent.invalidRecord(provenance, headers: spec.headers, reason: invalid.reason,
                                                      dlq: "failed: " + Self.longRefusal)
                report.measures.append(measure(event))
            case .success(let decoded):
                guard case .upload(let job) = decoded.command else { continue }
                jobs.append(job)
                apply(job, to: &batches, answers: answers)
            }
        }
        if let first = jobs.first { apply(first, to: &batches, answers: answers) }
        for batchId in batches.keys { batches[batchId]?.requestSend() }
        for (batchId, drive) in batches {
            report.results[batchId] = drive.batch.result
            report.measures += drive.events.map(measure)
            report.measures += drive.snapshots.map { snapshot in
                guard let bytes = BatchSnapshot.encode(snapshot, writerGeneration: .max, maxBytes: maxBytes) else {
                    return Measure(what: "snapshot (did not fit)", bytes: .max)
                }
                return Measure(what: "snapshot", bytes: bytes.count)
            }
        }
        return report
    }

    private func apply(_ job: UploadJob, to batches: inout [String: ImmediateCollaborators], answers: Answers) {
        var configuration = EngineConfiguration()
        configuration.limits = limits
        var drive = batches[job.batchId] ?? ImmediateCollaborators(
            batch: UploadBatch(context: job.context, configuration: configuration, concurrency: job.concurrency, options: job.message),
            answers: answers)
        drive.apply(job)
        batches[job.batchId] = drive
    }

    private func measure(_ event: WorkerEvent) -> Measure {
        Measure(what: event.type, bytes: encoder.record(of: event, sequence: .max, topic: "attache.events").byteCount)
    }
}
