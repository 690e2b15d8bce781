import UploadEngine

/// Shrinks an event's `data` until the event fits a byte budget (`events.maxBytes`): long strings are cut, then the
/// largest field is summarised as `{"summarised": {"count": n, "bytes": b}}`.
///
/// Only an event that does not fit comes here, so clarity wins over speed; every step strictly shrinks the value
/// and the number of steps is capped, so it always ends. The identity fields at the top of `data` (`batchId`,
/// `requestId`, `fileId`, `muid`) are never touched: they are bounded at intake and consumers key on them.
enum EventSummary {
    /// Fields a consumer keys on; bounded to 128 characters when they are taken in.
    static let identityFields: Set<String> = ["batchId", "requestId", "fileId", "muid"]

    /// `data` made to take at most `budget` bytes as encoded, or as close as summarising it allows.
    static func fit(_ data: JSONValue, budget: Int) -> JSONValue {
        var data = data
        // Long strings first (a server's URL, a mime type's parameters): they carry least of the event's meaning.
        var stringLimit = 64 * 1024
        while size(of: data) > budget, stringLimit >= 256 {
            data = cutStrings(data, longerThan: stringLimit, atTop: true)
            stringLimit /= 4
        }
        // Then whole fields, the largest first, at most a few times before the whole data is summarised.
        for _ in 0..<8 where size(of: data) > budget {
            data = summariseLargest(in: data, overshoot: size(of: data) - budget)
        }
        if size(of: data) > budget {
            data = summary(of: data, keeping: identity(of: data))
        }
        return data
    }

    static func size(of value: JSONValue) -> Int {
        var writer = JSONWriter(capacity: 0)
        writer.value(value)
        return writer.bytes.count
    }

    /// The summary that replaces a field: what it was and how large, not its content.
    static func summary(of value: JSONValue, keeping kept: [String: JSONValue] = [:]) -> JSONValue {
        let count: Int = switch value {
        case .array(let elements): elements.count
        case .object(let members): members.count
        case .string(let text): text.utf8.count
        default: 1
        }
        var members = kept
        members["summarised"] = .object(["count": .int(Int64(count)), "bytes": .int(Int64(size(of: value)))])
        return .object(members)
    }

    private static func identity(of data: JSONValue) -> [String: JSONValue] {
        guard case .object(let members) = data else { return [:] }
        return members.filter { identityFields.contains($0.key) }
    }

    private static func cutStrings(_ value: JSONValue, longerThan limit: Int, atTop: Bool) -> JSONValue {
        switch value {
        case .string(let text) where text.utf8.count > limit:
            return .string(WireError.cut(text, toBytes: limit))
        case .array(let elements):
            return .array(elements.map { cutStrings($0, longerThan: limit, atTop: false) })
        case .object(let members):
            var cut = members
            for (name, member) in members where !(atTop && identityFields.contains(name)) {
                cut[name] = cutStrings(member, longerThan: limit, atTop: false)
            }
            return .object(cut)
        default:
            return value
        }
    }

    /// Replaces one field: the deepest one whose summary alone removes `overshoot`, else the largest at the level
    /// where no single field would do.
    private static func summariseLargest(in value: JSONValue, overshoot: Int, atTop: Bool = true) -> JSONValue {
        switch value {
        case .array(var elements):
            guard let (index, _) = largest(elements.enumerated().map { ($0.offset, $0.element) }) else { return value }
            elements[index] = replacement(for: elements[index], overshoot: overshoot)
            return .array(elements)
        case .object(var members):
            let candidates = members.filter { !(atTop && identityFields.contains($0.key)) }.map { ($0.key, $0.value) }
            guard let (name, _) = largest(candidates) else { return value }
            members[name] = replacement(for: members[name]!, overshoot: overshoot)
            return .object(members)
        default:
            return summary(of: value)
        }
    }

    private static func replacement(for child: JSONValue, overshoot: Int) -> JSONValue {
        let childSize = size(of: child)
        if isContainer(child), largestChildSize(of: child) > overshoot + 64 {
            // Something inside removes the overshoot on its own: summarise there, keep the rest of this field.
            return summariseLargest(in: child, overshoot: overshoot, atTop: false)
        }
        return childSize > 96 ? summary(of: child) : child
    }

    private static func largest<Key>(_ candidates: [(Key, JSONValue)]) -> (Key, Int)? {
        candidates.map { ($0.0, size(of: $0.1)) }.max { $0.1 < $1.1 }
    }

    private static func largestChildSize(of value: JSONValue) -> Int {
        switch value {
        case .array(let elements): elements.map(size(of:)).max() ?? 0
        case .object(let members): members.values.map(size(of:)).max() ?? 0
        default: 0
        }
    }

    private static func isContainer(_ value: JSONValue) -> Bool {
        switch value {
        case .array, .object: true
        default: false
        }
    }
}
