import CCurl
import Foundation

#if canImport(Glibc)
import Glibc
import WireFormat
#endif

/// The work behind each libcurl callback; all of it runs on the transfer thread.
extension Transfer {
    /// One header line (the status line, a field, or the blank line that ends a block). Returning anything but
    /// `line.count` aborts the transfer.
    func receiveHeader(_ line: UnsafeRawBufferPointer) -> Int {
        lastActivity = .now
        // Trim and split on the raw bytes: Foundation's trimming was a measurable share of a small transfer's CPU.
        let bytes = Self.trimmed(line[...])
        if bytes.starts(with: "HTTP/".utf8) {
            status = Self.statusCode(of: bytes)
            // Room for a usual response's fields at once, rather than growing the array at 1, 2, 4 and 8 of them.
            headers = []
            headers.reserveCapacity(16)
            contentLength = nil
            memoryBody = Data()
            return line.count
        }
        if bytes.isEmpty {
            return headerBlockEnded() ? line.count : 0
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return line.count }
        let name = String(decoding: Self.trimmed(bytes[..<colon]), as: UTF8.self)
        let value = String(decoding: Self.trimmed(bytes[bytes.index(after: colon)...]), as: UTF8.self)
        headers.append(HTTPHeader(name, value))
        if name.equalsIgnoringASCIICase("Content-Length") {
            contentLength = Int64(value)
        }
        return line.count
    }

    /// The status code of a status line (`HTTP/1.1 200 OK`): the digits after the first space, read in place; 0
    /// when there are none.
    static func statusCode(of line: Slice<UnsafeRawBufferPointer>) -> Int {
        guard var index = line.firstIndex(of: UInt8(ascii: " ")) else { return 0 }
        index = line.index(after: index)
        var code = 0, digits = 0
        while index < line.endIndex, digits < 4, case let byte = line[index], byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            code = code * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
            index = line.index(after: index)
        }
        // A code is three digits, then the end or a space before the reason.
        guard digits == 3, index == line.endIndex || line[index] == UInt8(ascii: " ") else { return 0 }
        return code
    }

    /// The bytes without leading and trailing spaces, tabs, CR and LF.
    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) }) else {
            return bytes[bytes.startIndex..<bytes.startIndex]
        }
        return bytes[first...last]
    }

    /// At the end of a 2xx header block a download checks the announced size and opens its file.
    private func headerBlockEnded() -> Bool {
        guard case .file(let path, let limit) = spec.sink, (200..<300).contains(status), !sinkFileCreated else {
            return true
        }
        if let limit, let contentLength, contentLength > limit {
            failure = HTTPTransportError(
                .sizeLimitExceeded, "response of \(contentLength) bytes exceeds the limit of \(limit) bytes",
                retryable: false)
            return false
        }
        return openSink(path: path)
    }

    /// A chunk of response body. Returning anything but `chunk.count` aborts the transfer.
    func receiveBody(_ chunk: UnsafeRawBufferPointer) -> Int {
        lastActivity = .now
        switch spec.sink {
        case .memory(let limit, let truncate):
            return keepInMemory(chunk, limit: limit, truncate: truncate)
        case .file(_, let limit):
            guard sinkFile >= 0 else {
                return keepInMemory(chunk, limit: TransferSpec.diagnosticBodyLimit, truncate: true)
            }
            if let limit, received + Int64(chunk.count) > limit {
                failure = HTTPTransportError(
                    .sizeLimitExceeded, "response exceeds the limit of \(limit) bytes", retryable: false)
                return 0
            }
            if let check = spec.downloadGuard, !check.inspect(chunk) { return 0 }
            guard writeAll(chunk) else { return 0 }
            received += Int64(chunk.count)
            if case .download(let report) = spec.progress {
                report(received, contentLength)
            }
            return chunk.count
        }
    }

    private func keepInMemory(_ chunk: UnsafeRawBufferPointer, limit: Int, truncate: Bool) -> Int {
        let room = max(0, limit - memoryBody.count)
        if chunk.count > room {
            guard truncate else {
                failure = HTTPTransportError(
                    .sizeLimitExceeded, "response exceeds the limit of \(limit) bytes", retryable: false)
                return 0
            }
            memoryBody.append(contentsOf: chunk.prefix(room))
            return chunk.count
        }
        memoryBody.append(contentsOf: chunk)
        return chunk.count
    }

    private func writeAll(_ chunk: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < chunk.count {
            let written = write(sinkFile, chunk.baseAddress! + offset, chunk.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                failure = localFileError("cannot write the download")
                return false
            }
            offset += written
        }
        return true
    }

    /// Fills libcurl's upload buffer; returns the byte count, 0 at the end, `CURL_READFUNC_ABORT`, or
    /// `CURL_READFUNC_PAUSE` when the rate caps have no bytes to spare (``pausedUntil`` says when they will).
    func supplyBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard !spec.throttles.isEmpty, buffer.count > 0 else { return supplyUncapped(into: buffer) }
        let remaining = Int(min(Int64(buffer.count), uploadSize - bodyOffset))
        guard remaining > 0 else { return supplyUncapped(into: buffer) }
        let now = ContinuousClock.now
        let (granted, retryAt) = BandwidthCaps.take(upTo: remaining, from: spec.throttles, now: now)
        guard granted > 0 else {
            // Asked again when the caps will have a chunk, and at least once a second (a third of the stall
            // timeout, when shorter). A pause that follows a pause repeats the progress so far, so the caller's own
            // stall clock hears that the transfer waits for a cap, not that it stalled; after bytes moved, their
            // own report has just said as much.
            let longest = WaitingReports.interval(for: spec.stallTimeout, atMost: Self.longestPause)
            pausedUntil = min(retryAt ?? now, now + longest)
            if heldByCaps, case .upload(let report) = spec.progress { report(reportedUpload, uploadSize) }
            heldByCaps = true
            return Int(CURL_READFUNC_PAUSE)
        }
        heldByCaps = false
        let count = supplyUncapped(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<granted]))
        // Bytes granted and not sent (an abort, an early end) go back for the other transfers.
        if count >= 0, count < granted { spec.throttles.forEach { $0.giveBack(granted - count) } }
        return count
    }

    /// The longest a transfer stays paused for its rate caps before it asks them again.
    static let longestPause: Duration = .seconds(1)

    /// How far into the body libcurl has been handed bytes.
    private var bodyOffset: Int64 {
        switch spec.body {
        case .none: 0
        case .bytes: Int64(sourceOffset)
        case .file, .source: uploadSize - sourceRemaining
        }
    }

    private func supplyUncapped(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        switch spec.body {
        case .none:
            return 0
        case .bytes(let data):
            let count = min(buffer.count, data.count - sourceOffset)
            guard count > 0 else { return 0 }
            data.withUnsafeBytes { bytes in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[sourceOffset..<sourceOffset + count]))
            }
            sourceOffset += count
            return count
        case .file, .source:
            return supplyStoredBody(into: buffer)
        }
    }

    /// Fills libcurl's buffer from the body's file or open source, at the position the transfer has reached (a
    /// positioned read: an open source is shared with other readers).
    private func supplyStoredBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard sourceRemaining > 0 else { return 0 }
        let wanted = Int(min(Int64(buffer.count), sourceRemaining))
        let count: Int
        do {
            count = try readStoredBody(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]),
                                       at: sourceBase + uploadSize - sourceRemaining)
        } catch {
            failure = error
            return Int(CURL_READFUNC_ABORT)
        }
        guard count > 0 else {
            // The file shrank under the transfer: sending fewer bytes than announced would corrupt the object.
            failure = HTTPTransportError(.localFile, "\(bodyName) ended \(sourceRemaining) bytes early", retryable: false)
            return Int(CURL_READFUNC_ABORT)
        }
        sourceRemaining -= Int64(count)
        return count
    }

    private func readStoredBody(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(HTTPTransportError) -> Int {
        if case .source(let source, _) = spec.body {
            do {
                return try source.read(into: buffer, at: offset)
            } catch {
                throw HTTPTransportError(.localFile, "cannot read \(bodyName): \(error)", retryable: false)
            }
        }
        while true {
            let count = pread(sourceFile, buffer.baseAddress, buffer.count, off_t(offset))
            if count >= 0 { return count }
            if errno != EINTR { throw localFileError("cannot read \(bodyName)") }
        }
    }

    /// How error messages name the body.
    private var bodyName: String {
        if case .file(let path, _) = spec.body { return path }
        return "the source"
    }

    /// Moves the body back to `offset` when libcurl must send it again (a reused connection died under it).
    func rewindBody(to offset: Int64) -> Bool {
        switch spec.body {
        case .none:
            return offset == 0
        case .bytes(let data):
            guard offset >= 0, offset <= Int64(data.count) else { return false }
            sourceOffset = Int(offset)
            return true
        case .file, .source:
            guard offset >= 0, offset <= uploadSize else { return false }
            sourceRemaining = uploadSize - offset
            return true
        }
    }

    /// libcurl's progress numbers: feed the stall watchdog and report upload progress, never going backwards.
    func observe(downloaded: Int64, uploaded: Int64) {
        if uploaded != movedUp || downloaded != movedDown {
            movedUp = uploaded
            movedDown = downloaded
            lastActivity = .now
        }
        if case .upload(let report) = spec.progress, uploaded > reportedUpload {
            reportedUpload = uploaded
            report(uploaded, uploadSize)
        }
    }
}
