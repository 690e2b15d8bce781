import KafkaIO

/// Where the registry hands back the records it held for their batches, once each record's fate is known: the job
/// intake, which commits or gives them up. The registry decides *when* (DESIGN §4.1, snapshot before offset); the
/// receiver only does it.
protocol HeldRecords: Sendable {
    /// The records may be committed: their batch settled, and its events and snapshot are delivered.
    func commit(_ records: [RecordPosition])
    /// The records' batch went to another owner first: they stay uncommitted, for the partition's next owner.
    func giveUp(_ records: [RecordPosition])
}
