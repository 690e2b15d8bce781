extension JSONParser {
    /// Parses the value at `index` (whitespace already skipped) and moves past it.
    ///
    /// Containers are kept on explicit stacks instead of the call stack, so the nesting limit bounds memory alone and
    /// no input can overflow a thread's stack, whatever thread parses it.
    mutating func parseNestedValue() throws(JSONParseError) -> JSONValue {
        var open = OpenContainers()
        while true {
            var value: JSONValue
            // Descend until a complete value is in hand: a scalar, or a container that turned out empty.
            descending: while true {
                guard index < bytes.count else { throw JSONParseError(.unexpectedEnd, at: index) }
                switch bytes[index] {
                case UInt8(ascii: "{"):
                    try enterContainer(depth: open.kinds.count)
                    skipWhitespace()
                    if try consume(UInt8(ascii: "}")) {
                        value = .object([:])
                        break descending
                    }
                    open.keys.append(try parseMemberName())
                    open.kinds.append(.object(firstMember: open.members.count))
                case UInt8(ascii: "["):
                    try enterContainer(depth: open.kinds.count)
                    skipWhitespace()
                    if try consume(UInt8(ascii: "]")) {
                        value = .array([])
                        break descending
                    }
                    open.kinds.append(.array(firstElement: open.elements.count))
                default:
                    value = try parseScalar()
                    break descending
                }
            }
            // Ascend: put the value into its container; a closed container is itself a value one level up.
            while true {
                guard let kind = open.kinds.last else { return value }
                skipWhitespace()
                switch kind {
                case .array(let first):
                    open.elements.append(value)
                    if try consume(UInt8(ascii: "]")) {
                        value = .array(Array(open.elements[first...]))
                        open.elements.removeLast(open.elements.count - first)
                        open.kinds.removeLast()
                        continue
                    }
                    try expect(UInt8(ascii: ","))
                case .object(let first):
                    open.members.append((open.keys.removeLast(), value))
                    if try consume(UInt8(ascii: "}")) {
                        value = .object(open.closeObject(from: first))
                        open.kinds.removeLast()
                        continue
                    }
                    try expect(UInt8(ascii: ","))
                    skipWhitespace()
                    open.keys.append(try parseMemberName())
                }
                skipWhitespace()
                break
            }
        }
    }

    /// The containers being filled, innermost last.
    ///
    /// The elements and members of all open containers share two stacks; a container is built once, at its exact
    /// size, when it closes, so filling one never reallocates it.
    private struct OpenContainers {
        enum Kind {
            case array(firstElement: Int)
            case object(firstMember: Int)
        }

        var kinds: [Kind] = []
        var elements: [JSONValue] = []
        var members: [(name: String, value: JSONValue)] = []
        /// The name of the member each open object is waiting for.
        var keys: [String] = []

        /// Stacks with room for what a job, a presign answer or a snapshot holds, so that parsing one grows none
        /// of them: from empty, each would be reallocated at 1, 2, 4, 8… entries.
        init() {
            kinds.reserveCapacity(8)
            elements.reserveCapacity(16)
            members.reserveCapacity(32)
            keys.reserveCapacity(8)
        }

        /// Takes the innermost object's members off the stack; a repeated name keeps its last value.
        mutating func closeObject(from first: Int) -> [String: JSONValue] {
            var object = [String: JSONValue](minimumCapacity: members.count - first)
            for member in members[first...] { object[member.name] = member.value }
            members.removeLast(members.count - first)
            return object
        }
    }

    /// Reads `"name":` and the whitespace after it, leaving `index` at the member's value.
    private mutating func parseMemberName() throws(JSONParseError) -> String {
        guard index < bytes.count else { throw JSONParseError(.unexpectedEnd, at: index) }
        guard bytes[index] == UInt8(ascii: "\"") else { throw JSONParseError(.unexpectedByte, at: index) }
        let name = try parseString()
        skipWhitespace()
        try expect(UInt8(ascii: ":"))
        skipWhitespace()
        return name
    }

    /// Steps over an opening bracket or brace inside `depth` open containers, refusing to go deeper than the limit.
    private mutating func enterContainer(depth: Int) throws(JSONParseError) {
        guard depth < maximumDepth else { throw JSONParseError(.tooDeep, at: index) }
        index += 1
    }
}
