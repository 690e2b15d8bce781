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
        let key = Array(#""join_state""#.utf8)
        guard json.count > key.count else { return nil }
        var index = 0
        search: while index + key.count <= json.count {
            for offset in 0..<key.count where json[index + offset] != key[offset] {
                index += 1
                continue search
            }
            break
        }
        guard index + key.count <= json.count else { return nil }
        var cursor = index + key.count
        // `: "` with any spacing, then the value up to its closing quote.
        while cursor < json.count, json[cursor] == UInt8(ascii: " ") || json[cursor] == UInt8(ascii: ":") { cursor += 1 }
        guard cursor < json.count, json[cursor] == UInt8(ascii: "\"") else { return nil }
        cursor += 1
        let start = cursor
        while cursor < json.count, json[cursor] != UInt8(ascii: "\"") { cursor += 1 }
        guard cursor < json.count else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: json[start..<cursor]), as: UTF8.self)
    }
}
