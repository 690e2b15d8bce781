import UploadEngine
import WireFormat

/// Shrinks an event's `data` until the event fits a byte budget (`events.maxBytes`): strings over 1 KiB are cut
/// (ending in `…`), then the largest field is summarised as `{"summarised": {"count": n, "bytes": b}}` — the deepest
/// one whose summary alone is enough, so as much of the event as possible survives.
///
/// Only an event that does not fit comes here. Every step strictly shrinks the value and the number of steps is
/// capped, so it always ends; each step measures one path of the tree, so the work stays linear in the event's size. The identity fields at the top of `data` (`batchId`,
/// `requestId`, `fileId`, `muid`) are kept whole while anything else can give way: consumers key on them, and the
/// decoder bounds them (``RecordField``); only as a last resort are they cut too.
///
/// An event made from an accepted record never comes here: the record limits keep it far under `events.maxBytes`. What
/// may is an event carrying what a server answered (a presign answer's long URL, a message API's long id).
enum EventSummary {
    /// Fields a consumer keys on; bounded by ``RecordField`` when they are taken in.
    static let identityFields: Set<String> = ["batchId", "requestId", "fileId", "muid"]
    /// What an identity field is cut to when nothing else is left to summarise: past every id a record may supply
    /// (128 bytes) and a default `requestId` (`<topic>/<partition>/<offset>`, under 300 bytes with Kafka's longest
    /// topic names).
    static let identityLimit = 512

    /// `data` made to take at most `budget` bytes as encoded (a budget under about 8 KiB may leave it larger).
    static func fit(_ data: JSONValue, budget: Int) -> JSONValue {
        // Long strings first (a server's URL, a mime type's parameters, a message): cut to 1 KiB, like error
        // messages, in one pass that reads no more of each than it keeps.
        var data = cutStrings(data, longerThan: WireError.messageLimit, atTop: true)
        var encoded = size(of: data)
        // Then whole fields: the deepest one whose summary alone removes the excess, else the largest at the top.
        for _ in 0..<16 where encoded > budget {
            data = summariseInside(data, excess: encoded - budget, atTop: true) ?? summariseLargestAtTop(data)
            encoded = size(of: data)
        }
        guard encoded > budget else { return data }
        // Last resort: only the identity is left, itself cut (valid ids are far shorter than the cut)...
        let identity = identity(of: data).mapValues { value -> JSONValue in
            if case .string(let text) = value { .string(WireError.cut(text, toBytes: identityLimit)) } else { value }
        }
        let summarised = summary(of: data, size: encoded, keeping: identity)
        // ... or nothing at all but the summary.
        return size(of: summarised) <= budget ? summarised : summary(of: data, size: encoded)
    }

    static func size(of value: JSONValue) -> Int {
        var writer = JSONWriter(capacity: 0)
        writer.value(value)
        return writer.byteCount
    }

    /// The summary that replaces a field of `size` bytes: what it was and how large, not its content.
    static func summary(of value: JSONValue, size: Int, keeping kept: [String: JSONValue] = [:]) -> JSONValue {
        let count: Int = switch value {
        case .array(let elements): elements.count
        case .object(let members): members.count
        case .string(let text): text.utf8.count
        default: 1
        }
        var members = kept
        members["summarised"] = .object(["count": .int(Int64(count)), "bytes": .int(Int64(size))])
        return .object(members)
    }

    /// Bytes a summary takes, about: a field smaller than this is not worth summarising.
    private static let summarySize = 64

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

    /// `value` with its largest field summarised, descending while one field inside that one would do on its own;
    /// nil when no field of `value` alone removes `excess`. Each level is measured once.
    private static func summariseInside(_ value: JSONValue, excess: Int, atTop: Bool) -> JSONValue? {
        guard let (key, child, childSize) = largestChild(of: value, atTop: atTop), childSize >= excess + summarySize else {
            return nil
        }
        let replacement = summariseInside(child, excess: excess, atTop: false) ?? summary(of: child, size: childSize)
        return replacing(key, in: value, with: replacement)
    }

    /// `data` with its largest non-identity field summarised.
    private static func summariseLargestAtTop(_ data: JSONValue) -> JSONValue {
        guard let (key, child, childSize) = largestChild(of: data, atTop: true), childSize > summarySize else { return data }
        return replacing(key, in: data, with: summary(of: child, size: childSize))
    }

    private enum Key {
        case index(Int)
        case name(String)
    }

    private static func largestChild(of value: JSONValue, atTop: Bool) -> (Key, JSONValue, Int)? {
        var best: (Key, JSONValue, Int)?
        switch value {
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                let size = size(of: element)
                if best.map({ size > $0.2 }) ?? true { best = (.index(index), element, size) }
            }
        case .object(let members):
            for (name, member) in members where !(atTop && identityFields.contains(name)) {
                let size = size(of: member)
                if best.map({ size > $0.2 }) ?? true { best = (.name(name), member, size) }
            }
        default:
            break
        }
        return best
    }

    private static func replacing(_ key: Key, in value: JSONValue, with replacement: JSONValue) -> JSONValue {
        switch (value, key) {
        case (.array(var elements), .index(let index)):
            elements[index] = replacement
            return .array(elements)
        case (.object(var members), .name(let name)):
            members[name] = replacement
            return .object(members)
        default:
            return value
        }
    }
}
