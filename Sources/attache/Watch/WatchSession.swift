import Foundation
import KafkaIO
import OperatorTools
import Records
import UploadEngine

/// One run of `attache watch` (and of `submit --watch`): follows the events topic and, for `--until-idle`, the
/// changelog, and shows what happens — JSON lines off a terminal, progress bars on one.
struct WatchSession {
    let client: ClientConfiguration
    /// The batches watched; nil: all.
    let batches: Set<String>?
    let fromBeginning: Bool
    let untilIdle: Bool

    /// Runs until the watched batches are done (`untilIdle`), the stream fails, or SIGINT/SIGTERM. `afterStart` runs
    /// once every partition is being followed and returns the jobs-topic offsets each batch must have applied before
    /// it counts as done (what `submit` produced).
    func run(afterStart: @escaping @Sendable () async throws -> [String: Int64] = { [:] }) async -> Int32 {
        let task = Task { await follow(afterStart: afterStart) }
        TerminationSignals.watch { _ in task.cancel() }
        return await task.value
    }

    private func follow(afterStart: () async throws -> [String: Int64]) async -> Int32 {
        let kafka = client.kafka(clientID: "attache-watch")
        let topics = client.configuration.kafka
        var tracker = IdleTracker()
        var sources = [TopicFollower.Source(topic: topics.eventsTopic, start: fromBeginning ? .beginning : .end)]
        if untilIdle {
            do {
                let changelog = try await TopicSnapshot.read(topics.batchesTopic, kafka: kafka)
                // From the beginning, a batch idle before the watch began is done only once its events were shown.
                for record in changelog.records { take(snapshot: record, into: &tracker, beforeStart: !fromBeginning) }
                sources.append(TopicFollower.Source(topic: topics.batchesTopic, start: .offsets(changelog.ends)))
            } catch is TopicSnapshot.TopicMissing {
                // No worker has started on this cluster yet: its first snapshots are followed once it creates the topic.
                sources.append(TopicFollower.Source(topic: topics.batchesTopic, start: .beginning))
            } catch {
                Console.error("watch", "could not read \(topics.batchesTopic): \(error)")
                return 1
            }
        }
        let screen = TerminalScreen.isTerminal ? TerminalScreen() : nil
        let redraw = screen.map { screen in
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: TerminalScreen.interval)
                    screen.redrawIfNeeded()
                }
            }
        }
        defer {
            redraw?.cancel()
            screen?.finish()
        }
        var board = ProgressBoard()
        var seen: Set<String> = batches ?? []
        do {
            for try await element in TopicFollower.follow(sources, kafka: kafka) {
                switch element {
                case .waiting(let topic):
                    Console.error("watch", "topic \(topic) does not exist yet; it is followed once it does")
                case .started:
                    for (batchId, offset) in try await afterStart() { tracker.require(batchId, applied: offset) }
                case .record(let record) where record.topic == topics.eventsTopic:
                    guard let value = record.value, let event = WatchedEvent(json: value), isWatched(event.batchId) else { continue }
                    seen.insert(event.batchId)
                    tracker.take(eventOf: event.batchId, sequence: event.sequence)
                    if let screen {
                        if let line = board.take(event, at: Date()) { screen.print(line) }
                        screen.update(bars: board.lines(width: TerminalScreen.width - 1))
                    } else {
                        FileHandle.standardOutput.write(value + Data("\n".utf8))
                    }
                case .record(let record):
                    take(snapshot: record, into: &tracker, beforeStart: false)
                }
                if untilIdle, !seen.isEmpty, seen.allSatisfy(tracker.isDone) {
                    return seen.allSatisfy(tracker.succeeded) ? 0 : 1
                }
            }
            return 0
        } catch is CancellationError {
            return untilIdle ? 1 : 0
        } catch {
            Console.error("watch", "\(error)")
            return 1
        }
    }

    private func isWatched(_ batchId: String) -> Bool {
        batches.map { $0.contains(batchId) } ?? true
    }

    private func take(snapshot record: KafkaRecord, into tracker: inout IdleTracker, beforeStart: Bool) {
        guard let key = record.keyString, isWatched(key) else { return }
        guard let value = record.value else {
            tracker.take(snapshot: nil, of: key, beforeStart: beforeStart)
            return
        }
        guard let restored = try? BatchSnapshot.decode(value, configuration: client.configuration.engine) else { return }
        // A cleared batch is gone, as far as watching it goes.
        tracker.take(snapshot: restored.batch.isCleared ? nil : IdleTracker.Snapshot(restored.batch), of: key, beforeStart: beforeStart)
    }
}
