import Foundation

/// The cache's compact form of a snapshot (``RecentSnapshots``): the JSON with the snapshot codec's member names —
/// over half of a one-file snapshot's bytes — replaced by one- or two-byte codes.
///
/// JSON as the codec writes it has no raw byte below 0x20 (control characters in strings are escaped, and it writes
/// no whitespace), so those bytes are free to mean "token": 0x01–0x1E each stand for one of the most frequent names,
/// 0x1F followed by an index for one of the rest, and 0x00 followed by a byte for that byte itself, so any bytes at all
/// come back exactly as they went in. Packing costs a pass over the bytes with two table reads where a name could
/// start; it runs once per recorded snapshot, off the intake's lanes.
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
        "\"user\"", "\"group\"", "\"none\"", "\"auto\"", "\"manual\"", ",\"nextGeneration\":", ",\"cleared\":",
    ].map { Array($0.utf8) }

    private static let literal: UInt8 = 0x00
    private static let singleCodes = 0x1E
    private static let extended: UInt8 = 0x1F

    /// The lookup tables of ``pack(_:into:)``, flat so that a position costs two array reads.
    private struct Index {
        /// Every token, back to back, and where each starts (one more entry: the end of the last).
        var bytes: [UInt8] = []
        var starts: [Int] = []
        /// By first byte: its row in `heads`, or -1 for a byte no token starts with.
        var rows = [Int](repeating: -1, count: 256)
        /// By row and third byte: the longest token starting with those bytes, or -1; `next` chains the rest,
        /// longest first.
        var heads: [Int] = []
        var next: [Int] = []
    }

    private static let index: Index = {
        var index = Index()
        for token in tokens {
            precondition(token.count >= 3, "a token shorter than its code saves nothing")
            index.starts.append(index.bytes.count)
            index.bytes += token
        }
        index.starts.append(index.bytes.count)
        index.next = [Int](repeating: -1, count: tokens.count)
        // Shortest first, each pushed in front: the chains end up longest first.
        for token in tokens.indices.sorted(by: { tokens[$0].count < tokens[$1].count }) {
            let first = Int(tokens[token][0]), third = Int(tokens[token][2])
            if index.rows[first] < 0 {
                index.rows[first] = index.heads.count / 256
                index.heads += [Int](repeating: -1, count: 256)
            }
            let slot = index.rows[first] * 256 + third
            index.next[token] = index.heads[slot]
            index.heads[slot] = token
        }
        return index
    }()

    /// Appends `snapshot`, packed, to `output`; answers how many bytes it took.
    @discardableResult
    static func pack(_ snapshot: Data, into output: inout [UInt8]) -> Int {
        // Written through pointers into room for the worst case (every byte escaped), made in `output` itself so
        // that no buffer comes and goes per snapshot: appending byte by byte, each append checked the array's
        // uniqueness and capacity, which cost four times the packing itself.
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: snapshot.count * 2))
        let written = output.withUnsafeMutableBufferPointer { out in
            snapshot.withUnsafeBytes { raw in
                pack(raw.bindMemory(to: UInt8.self), into: UnsafeMutableBufferPointer(rebasing: out[start...]))
            }
        }
        output.removeLast(snapshot.count * 2 - written)
        return written
    }

    /// Packs `bytes` into `out`, which has room for twice as many; answers how many it wrote.
    private static func pack(_ bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let index = Self.index
        return index.bytes.withUnsafeBufferPointer { tokenBytes in
            var at = 0, written = 0
            while at < bytes.count {
                let byte = bytes[at]
                if byte < 0x20 {
                    out[written] = literal
                    out[written + 1] = byte
                    written += 2
                    at += 1
                    continue
                }
                let row = index.rows[Int(byte)]
                if row >= 0, at + 2 < bytes.count {
                    var token = index.heads[row * 256 + Int(bytes[at + 2])]
                    while token >= 0 {
                        let tokenStart = index.starts[token], length = index.starts[token + 1] - tokenStart
                        if at + length <= bytes.count,
                           memcmp(tokenBytes.baseAddress! + tokenStart, bytes.baseAddress! + at, length) == 0 {
                            break
                        }
                        token = index.next[token]
                    }
                    if token >= 0 {
                        if token < singleCodes {
                            out[written] = UInt8(token + 1)
                            written += 1
                        } else {
                            out[written] = extended
                            out[written + 1] = UInt8(token - singleCodes)
                            written += 2
                        }
                        at += index.starts[token + 1] - index.starts[token]
                        continue
                    }
                }
                out[written] = byte
                written += 1
                at += 1
            }
            return written
        }
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
