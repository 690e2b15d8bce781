import CRdKafka
import Dispatch

extension ConsumerShared {
    /// Handles one rebalance on the poll thread.
    ///
    /// Assign: take the partitions, paused exactly when the consumer is, note the group generation and announce them.
    /// Revoke: stop intake (drop their buffered records), announce, wait for the owner's revoke hook (bounded),
    /// commit their watermarks, then release them. Lost partitions are not committed: another member may own them
    /// already.
    func rebalance(client: OpaquePointer, reason: rd_kafka_resp_err_t,
                   partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?) {
        let affected = RDTopicPartitionList.entries(of: partitions).map(\.partition)
        let cooperative = String(cString: rd_kafka_rebalance_protocol(client)) == "COOPERATIVE"
        switch reason {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
            // librdkafka keeps a partition's pause across a revoke: one paused during an earlier assignment to this
            // member comes back paused, and while the consumer is not paused nothing would resume it (a wedged
            // partition). The resume is queued before the assignment starts the fetcher at the committed offset, and
            // does nothing to a partition that is not paused. It gets a list of its own because it writes
            // per-partition errors into the list it is given, and the assignment takes librdkafka's as it came.
            if !state.withLock({ $0.pauseApplied }), !affected.isEmpty {
                _ = RDTopicPartitionList(affected.map { ($0, nil) }).withListPointer { rd_kafka_resume_partitions(client, $0) }
            }
            let failure = cooperative
                ? rd_kafka_incremental_assign(client, partitions).map(KafkaError.consuming)
                : nonError(rd_kafka_assign(client, partitions))
            // The join that led here set the generation; it is read before the assignment is announced.
            let generation = GroupGeneration.current(of: client, groupID: groupID)
            let paused = state.withLock { state in
                state.ledger.assign(affected)
                if let generation, generation >= 0 { state.groupGeneration = generation }
                state.assignmentsBeforeSteady = affected.isEmpty ? max(state.assignmentsBeforeSteady - 1, 0) : 0
                state.rebalanceSeen = nil
                return state.pauseApplied
            }
            if paused, let partitions, !affected.isEmpty {
                _ = rd_kafka_pause_partitions(client, partitions)
            }
            if let failure { events.yield(.error(failure)) }
            if !affected.isEmpty { events.yield(.assigned(affected)) }

        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
            let lost = rd_kafka_assignment_lost(client) != 0
            if !affected.isEmpty {
                state.withLock { $0.ledger.beginRevoke(affected) }
                buffer.purge(Set(affected))
                events.yield(lost ? .lost(affected) : .revoked(affected))
                waitForRevokeHook(affected, lost: lost)
                if !lost, let failure = commitBeforeRelease(Set(affected), client: client) {
                    events.yield(.error(failure))
                }
                state.withLock { $0.ledger.release(affected) }
            }
            state.withLock { $0.assignmentsBeforeSteady = cooperative && !lost ? 2 : 1 }
            let failure = cooperative
                ? rd_kafka_incremental_unassign(client, partitions).map(KafkaError.consuming)
                : nonError(rd_kafka_assign(client, nil))
            if let failure { events.yield(.error(failure)) }

        default:
            // librdkafka could not agree an assignment; drop everything, as its documentation prescribes.
            events.yield(.error(KafkaError(reason)))
            state.withLock { $0.ledger.release($0.ledger.assignment) }
            _ = rd_kafka_assign(client, nil)
        }
    }

    /// Runs the revoke hook as a task and blocks the poll thread until it returns or the revoke timeout passes.
    private func waitForRevokeHook(_ partitions: [TopicPartition], lost: Bool) {
        let done = DispatchSemaphore(value: 0)
        let hook = onRevoke
        Task.detached {
            await hook(partitions, lost)
            done.signal()
        }
        let milliseconds = Int(options.revokeTimeout.clampedMilliseconds)
        if done.wait(timeout: .now() + .milliseconds(milliseconds)) == .timedOut {
            events.yield(.error(KafkaError(.revokeTimedOut,
                                           "revoke hook for \(partitions) did not return in \(options.revokeTimeout)")))
        }
    }

    private func nonError(_ error: rd_kafka_resp_err_t) -> KafkaError? {
        error == RD_KAFKA_RESP_ERR_NO_ERROR ? nil : KafkaError(error)
    }
}
