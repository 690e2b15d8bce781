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

    /// The lookup tables of ``pack(_:into:)``, flat so that a position costs two table reads. Built once and kept for
    /// the life of the process, as buffers: read through arrays, each read was checked against its bounds, and each
    /// pack retained and released the arrays.
    private struct Index: @unchecked Sendable {
        /// Every token, back to back, and where each starts (one more entry: the end of the last).
        let bytes: UnsafeBufferPointer<UInt8>
        let starts: UnsafeBufferPointer<Int>
        /// By first byte: its row in `heads`, or -1 for a byte no token starts with.
        let rows: UnsafeBufferPointer<Int>
        /// By row and third byte: the longest token starting with those bytes, or -1; `next` chains the rest,
        /// longest first.
        let heads: UnsafeBufferPointer<Int>
        let next: UnsafeBufferPointer<Int>

        init() {
            var bytes: [UInt8] = [], starts: [Int] = []
            for token in tokens {
                precondition(token.count >= 3, "a token shorter than its code saves nothing")
                starts.append(bytes.count)
                bytes += token
            }
            starts.append(bytes.count)
            var rows = [Int](repeating: -1, count: 256), heads: [Int] = []
            var next = [Int](repeating: -1, count: tokens.count)
            // Shortest first, each pushed in front: the chains end up longest first.
            for token in tokens.indices.sorted(by: { tokens[$0].count < tokens[$1].count }) {
                let first = Int(tokens[token][0]), third = Int(tokens[token][2])
                if rows[first] < 0 {
                    rows[first] = heads.count / 256
                    heads += [Int](repeating: -1, count: 256)
                }
                let slot = rows[first] * 256 + third
                next[token] = heads[slot]
                heads[slot] = token
            }
            self.bytes = Self.kept(bytes)
            self.starts = Self.kept(starts)
            self.rows = Self.kept(rows)
            self.heads = Self.kept(heads)
            self.next = Self.kept(next)
        }

        private static func kept<Element>(_ values: [Element]) -> UnsafeBufferPointer<Element> {
            let buffer = UnsafeMutableBufferPointer<Element>.allocate(capacity: values.count)
            _ = buffer.initialize(from: values)
            return UnsafeBufferPointer(buffer)
        }
    }

    private static let index = Index()

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
        guard let input = bytes.baseAddress, let output = out.baseAddress else { return 0 }
        let index = Self.index
        let count = bytes.count
        var at = 0, written = 0
        while at < count {
            let byte = input[at]
            if byte < 0x20 {
                output[written] = literal
                output[written + 1] = byte
                written += 2
                at += 1
                continue
            }
            let row = index.rows[Int(byte)]
            if row >= 0, at + 2 < count {
                var token = index.heads[row * 256 + Int(input[at + 2])]
                while token >= 0 {
                    let tokenStart = index.starts[token], length = index.starts[token + 1] - tokenStart
                    if at + length <= count, Self.equal(index.bytes.baseAddress! + tokenStart, input + at, length) { break }
                    token = index.next[token]
                }
                if token >= 0 {
                    if token < singleCodes {
                        output[written] = UInt8(token + 1)
                        written += 1
                    } else {
                        output[written] = extended
                        output[written + 1] = UInt8(token - singleCodes)
                        written += 2
                    }
                    at += index.starts[token + 1] - index.starts[token]
                    continue
                }
            }
            output[written] = byte
            written += 1
            at += 1
        }
        return written
    }

    /// Whether `length` bytes (at least 3) at `a` and `b` are the same: eight at a time, the last eight overlapping
    /// those before, so that a candidate — most differ within their first eight bytes — costs a load or two instead
    /// of a call to `memcmp`.
    @inline(__always)
    private static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        guard length >= 8 else {
            for offset in 0..<length where a[offset] != b[offset] { return false }
            return true
        }
        let left = UnsafeRawPointer(a), right = UnsafeRawPointer(b)
        var offset = 0
        while offset + 8 <= length {
            guard left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    == right.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
            offset += 8
        }
        return offset == length
            || left.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
                == right.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
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
