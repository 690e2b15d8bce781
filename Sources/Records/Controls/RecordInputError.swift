/// A command line that cannot become a record: a missing or bad flag, a file that cannot be sent. Printed with the
/// command's usage; the command exits 2.
public struct RecordInputError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
