/// The consumer group's join state as librdkafka's statistics report it (`cgrp.join_state`: `steady` once the member
/// holds its assignment for the current generation; `init`, `wait-join`, `wait-sync`, … while it rejoins).
///
/// librdkafka (2.0.2 and later) takes a commit answered `ILLEGAL_GENERATION` for a lost assignment (librdkafka issue
/// #4059). A commit sent while the member rejoins — another member joining or leaving, seen by the heartbeat, gives
/// no callback — carries the old generation, and a broker that answers it once the join completes answers exactly
/// that: the member drops every partition it was about to keep. The statistics are the one place the client says
/// it is rejoining, so the periodic commit waits while they say so.
enum GroupJoinState {
    /// The `join_state` value in a statistics document; nil when the document has none (not a group consumer yet).
    static func parse(_ json: UnsafeBufferPointer<UInt8>) -> String? {
        guard let keyEnd = end(of: joinStateKey, in: json) else { return nil }
        // `: "` with any spacing, then the value up to its closing quote.
        guard let open = json[keyEnd...].firstIndex(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: ":") }),
              json[open] == UInt8(ascii: "\""),
              let close = json[(open + 1)...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: json[(open + 1)..<close]), as: UTF8.self)
    }

    private static let joinStateKey = Array(#""join_state""#.utf8)

    /// The index just past the first occurrence of `needle`. The key sits in the `cgrp` object at the end of a
    /// document of tens of kilobytes that arrives ten times a second: a plain byte scan, since the generic
    /// `firstRange(of:)` took about 8 % of a busy worker's CPU on it.
    private static func end(of needle: [UInt8], in haystack: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var matched = 1
                while matched < needle.count, haystack[index + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return index + matched }
            }
            index += 1
        }
        return nil
    }
}
