/// One log line from librdkafka.
public struct KafkaLogMessage: Sendable, Hashable {
    /// Syslog severity: 0 emergency … 3 error, 4 warning, 5 notice, 6 info, 7 debug.
    public var level: Int32
    /// librdkafka's facility tag, e.g. `CONFWARN`, `FAIL`, `REQTMOUT`.
    public var facility: String
    /// The text.
    public var message: String
    /// The client instance name, e.g. `attache#consumer-1`.
    public var client: String
}
