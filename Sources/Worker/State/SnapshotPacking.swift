import Foundation

/// The cache's compact form of a snapshot (``RecentSnapshots``): the JSON with the snapshot codec's member names —
/// over half of a one-file snapshot's bytes — replaced by one- or two-byte codes.
///
/// JSON as the codec writes it has no raw byte below 0x20 (control characters in strings are escaped, and it writes
/// no whitespace), so those bytes are free to mean "token": 0x01–0x1E each stand for one of the most frequent names,
/// 0x1F followed by an index for one of the rest, and 0x00 followed by a byte for that byte itself, so any bytes at all
/// come back exactly as they went in. Packing costs a pass over the bytes with a table lookup at each `,`, `{`, `]`
/// and `"`; it runs once per recorded snapshot, off the intake's lanes.
enum SnapshotPacking {
    /// The names in the order ``UploadEngine``'s snapshot writer puts them, with the punctuation around them.
    /// Appending keeps packed bytes readable; reordering or removing changes what packed bytes mean, which only
    /// matters within one process (the cache is never written anywhere).
    static let tokens: [[UInt8]] = [
        // One byte each: in every snapshot, or in every file of one.
        "{\"v\":1,\"batchId\":", ",\"receiver\":{\"id\":", ",\"type\":", ",\"concurrency\":", ",\"message\":{\"send\":",
        ",\"files\":[", "{\"fileId\":", ",\"slot\":", ",\"name\":", ",\"mimeType\":", ",\"requestId\":",
        ",\"generation\":", ",\"attempt\":", ",\"state\":", ",\"error\":{\"code\":", ",\"message\":", ",\"retryable\":",
        ",\"source\":{", "\"bytes\":", ",\"record\":{\"partition\":", ",\"offset\":", ",\"index\":",
        "],\"rejectedDropped\":", ",\"nextSlot\":", ",\"sent\":[", ",\"captionSent\":", ",\"sendDue\":",
        ",\"sendRequestId\":", ",\"lastRequestId\":", ",\"sequence\":",
        // Two bytes each.
        ",\"stateVersion\":", ",\"completions\":", ",\"appliedThrough\":", ",\"updatedAt\":", ",\"writerGeneration\":",
        "\"rejected\"", "\"uploaded\"", "\"pending\"", "\"failed\"", "false", "true", "null", "\"ERR_",
        ",\"attachment\":{\"name\":", ",\"url\":", ",\"size\":", ",\"sha256\":", ",\"object\":", "\"path\":",
        "\"url\":", ",\"stripLocation\":", ",\"sender\":", ",\"parentMessageId\":", ",\"caption\":", ",\"metadata\":",
        ",\"tags\":", ",\"traces\":{", "{\"muid\":", ",\"fileIds\":", "{\"traceparent\":", ",\"tracestate\":",
        "\"user\"", "\"group\"", "\"none\"", "\"auto\"", "\"manual\"",
    ].map { Array($0.utf8) }

    private static let literal: UInt8 = 0x00
    private static let singleCodes = 0x1E
    private static let extended: UInt8 = 0x1F

    /// Token indices by their first and third bytes, longest first: every token is at least three bytes long.
    private static let candidates: [UInt16: [Int]] = {
        var table: [UInt16: [Int]] = [:]
        for (index, token) in tokens.enumerated() {
            precondition(token.count >= 3, "a token shorter than its code saves nothing")
            table[key(token[0], token[2]), default: []].append(index)
        }
        return table.mapValues { $0.sorted { tokens[$0].count > tokens[$1].count } }
    }()

    private static func key(_ first: UInt8, _ third: UInt8) -> UInt16 { UInt16(first) << 8 | UInt16(third) }

    /// Appends `snapshot`, packed, to `output`; answers how many bytes it took.
    @discardableResult
    static func pack(_ snapshot: Data, into output: inout [UInt8]) -> Int {
        let start = output.count
        snapshot.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var at = 0
            while at < bytes.count {
                let byte = bytes[at]
                if byte < 0x20 {
                    output.append(literal)
                    output.append(byte)
                    at += 1
                    continue
                }
                if at + 2 < bytes.count, let index = match(in: bytes, at: at) {
                    if index < singleCodes {
                        output.append(UInt8(index + 1))
                    } else {
                        output.append(extended)
                        output.append(UInt8(index - singleCodes))
                    }
                    at += tokens[index].count
                    continue
                }
                output.append(byte)
                at += 1
            }
        }
        return output.count - start
    }

    private static func match(in bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        let first = bytes[start]
        guard first == UInt8(ascii: ",") || first == UInt8(ascii: "{") || first == UInt8(ascii: "]")
            || first == UInt8(ascii: "\"") || first == UInt8(ascii: "f") || first == UInt8(ascii: "t")
            || first == UInt8(ascii: "n") else { return nil }
        guard let indices = candidates[key(first, bytes[start + 2])] else { return nil }
        for index in indices {
            let token = tokens[index]
            guard start + token.count <= bytes.count else { continue }
            if token.withUnsafeBufferPointer({ memcmp($0.baseAddress!, bytes.baseAddress! + start, token.count) == 0 }) {
                return index
            }
        }
        return nil
    }

    /// The snapshot `packed` was made from.
    static func unpack(_ packed: ArraySlice<UInt8>) -> Data {
        var output = [UInt8]()
        output.reserveCapacity(packed.count * 2)
        var at = packed.startIndex
        while at < packed.endIndex {
            let byte = packed[at]
            at += 1
            switch byte {
            case literal:
                guard at < packed.endIndex else { break }
                output.append(packed[at])
                at += 1
            case 1...UInt8(singleCodes):
                output.append(contentsOf: tokens[Int(byte) - 1])
            case extended:
                guard at < packed.endIndex else { break }
                let index = singleCodes + Int(packed[at])
                at += 1
                if index < tokens.count { output.append(contentsOf: tokens[index]) }
            default:
                output.append(byte)
            }
        }
        return Data(output)
    }
}
