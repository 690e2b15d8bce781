import Foundation
import Synchronization
import WireFormat

/// Structured logs on standard error: one JSON object per line (or plain text), never a credential.
///
/// Thread safety: lines are written whole under a lock, so concurrent writers never interleave.
public struct Logger: Sendable {
    public typealias Level = AttacheConfiguration.LogLevel

    private let minimum: Level
    private let format: AttacheConfiguration.LogFormat
    private let sink: @Sendable (String) -> Void

    public init(level: Level = .info, format: AttacheConfiguration.LogFormat = .json, sink: (@Sendable (String) -> Void)? = nil) {
        self.minimum = level
        self.format = format
        self.sink = sink ?? Logger.standardError
    }

    /// A logger that drops everything.
    public static let silent = Logger(level: .error, sink: { _ in })

    public func trace(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [String: String] = [:]) { log(.trace, message(), fields()) }
    public func debug(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [String: String] = [:]) { log(.debug, message(), fields()) }
    public func info(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [String: String] = [:]) { log(.info, message(), fields()) }
    public func warn(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [String: String] = [:]) { log(.warn, message(), fields()) }
    public func error(_ message: @autoclosure () -> String, _ fields: @autoclosure () -> [String: String] = [:]) { log(.error, message(), fields()) }

    public func log(_ level: Level, _ message: String, _ fields: [String: String]) {
        guard level >= minimum else { return }
        let time = RFC3339Instant.format(Date())
        switch format {
        case .json:
            var json = JSONWriter()
            json.beginObject()
            json.field("time", time)
            json.field("level", level.rawValue)
            json.field("msg", message)
            for (key, value) in fields.sorted(by: { $0.key < $1.key }) { json.field(named: key, value) }
            json.endObject()
            sink(json.string())
        case .text:
            let extra = fields.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            sink("\(time) \(level.rawValue.uppercased()) \(message)\(extra.isEmpty ? "" : " " + extra)")
        }
    }

    private static let lock = Mutex(())

    private static let standardError: @Sendable (String) -> Void = { line in
        lock.withLock { _ in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }
}
