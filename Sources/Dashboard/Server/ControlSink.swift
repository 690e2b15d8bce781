import Records

/// Where the dashboard's control buttons send their records: the jobs topic in a real run, a recorder in tests.
public protocol ControlSink: Sendable {
    /// Produces the control record; returns where it was stored (`topic/partition/offset`).
    func produce(_ control: ControlRecord) async throws -> String
}
