import Foundation

/// Standard error for the commands: one line per problem, prefixed with the command's name.
enum Console {
    static func error(_ command: String, _ message: String) {
        FileHandle.standardError.write(Data("attache \(command): \(message)\n".utf8))
    }

    /// A usage error: the message, then the command's usage; exit status 2.
    static func usageError(_ command: String, _ message: String) -> Int32 {
        FileHandle.standardError.write(Data("attache \(command): \(message)\n\n\(Usage.text(of: command))\n".utf8))
        return 2
    }

    /// Writes to standard output at once (Swift's `print` buffers when output is not a terminal).
    static func output(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
