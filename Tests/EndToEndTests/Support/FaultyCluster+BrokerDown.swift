import Foundation

extension FaultyCluster {
    /// Takes broker `broker` down for `duration`, then up.
    ///
    /// Both librdkafka builds keep a down broker's port bound (not listening) until it comes up, so no other socket
    /// can be given it meanwhile; nothing needs holding it from outside.
    func takeBrokerDown(_ broker: Int32, for duration: Duration) async throws {
        try await setBrokerDown(broker)
        try await Task.sleep(for: duration)
        try await setBrokerUp(broker)
    }
}
