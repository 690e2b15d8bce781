import CCurl
import Foundation
import WireFormat

#if canImport(Glibc)
import Glibc
#endif

/// Building the libcurl handle for a transfer; runs on the transfer thread just before the handle joins the multi.
extension Transfer {
    /// Opens the body, creates the easy handle and sets every option; the handle is kept in `easy`.
    func prepare(handles: EasyHandlePool? = nil) throws(HTTPTransportError) {
        try openBody()
        let easy = try CurlEasy(pool: handles)
        self.easy = easy
        let context = Unmanaged.passUnretained(self).toOpaque()
        let request = spec.request

        if let split = RequestTarget.split(request.url, followsRedirects: request.followRedirects) {
            try easy.set(CURLOPT_URL, split.url)
            try easy.set(CURLOPT_REQUEST_TARGET, split.target)
        } else {
            try easy.set(CURLOPT_URL, request.url)
        }
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_NOSIGNAL, 1)
        try easy.set(CURLOPT_SSL_VERIFYPEER, 1)
        try easy.set(CURLOPT_SSL_VERIFYHOST, 2)
        try easy.set(CURLOPT_TCP_KEEPALIVE, 1)
        try easy.set(CURLOPT_USERAGENT, spec.userAgent)
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(spec.connectTimeout))
        if let timeout = request.timeout {
            try easy.set(CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout))
        }
        // The speed floor is measured over the stall window: libcurl's own low-speed check, which keeps a running
        // average and fails the transfer with CURLE_OPERATION_TIMEDOUT once it stays below the floor that long.
        if let speed = request.minimumSpeed, speed > 0, let window = spec.stallTimeout {
            try easy.set(CURLOPT_LOW_SPEED_LIMIT, Int(clamping: speed))
            try easy.set(CURLOPT_LOW_SPEED_TIME, Self.wholeSeconds(window))
        }
        if request.followRedirects {
            try easy.set(CURLOPT_FOLLOWLOCATION, 1)
            try easy.set(CURLOPT_MAXREDIRS, DownloadGuard.maximumRedirects)
        }
        try easy.set(CURLOPT_PRIVATE, pointer: context)
        try installCallbacks(on: easy, context: context)
        if spec.downloadGuard?.policy != nil {
            try installAddressChecks(on: easy, context: context)
        }
        try setMethodAndBody(on: easy)
        try easy.setHeaderLines(headerLines())
    }

    private func openBody() throws(HTTPTransportError) {
        switch spec.body {
        case .none:
            uploadSize = 0
        case .bytes(let data):
            uploadSize = Int64(data.count)
        case .file(let path, let range):
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw localFileError("cannot open \(path)") }
            sourceFile = descriptor
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw localFileError("cannot stat \(path)") }
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                throw HTTPTransportError(.localFile, "\(path) is not a regular file", retryable: false)
            }
            try selectBody(range, of: Int64(info.st_size), in: path)
        case .source(let source, let range):
            try selectBody(range, of: source.size, in: "the source")
        }
    }

    /// Sends the bytes `range` of a stored body of `size` bytes (all of them without a range).
    private func selectBody(_ range: Range<Int64>?, of size: Int64, in name: String) throws(HTTPTransportError) {
        let bytes = range ?? 0..<size
        guard bytes.lowerBound >= 0, bytes.upperBound <= size else {
            throw HTTPTransportError(
                .localFile, "\(name) has \(size) bytes; bytes \(bytes.lowerBound)..<\(bytes.upperBound) are outside it",
                retryable: false)
        }
        sourceBase = bytes.lowerBound
        uploadSize = Int64(bytes.count)
        sourceRemaining = uploadSize
    }

    private func installCallbacks(on easy: CurlEasy, context: UnsafeMutableRawPointer) throws(HTTPTransportError) {
        let handle = easy.handle
        _ = attache_curl_easy_setopt_header(handle) { pointer, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.receiveHeader(UnsafeRawBufferPointer(start: pointer, count: size * count))
        }
        try easy.set(CURLOPT_HEADERDATA, pointer: context)
        _ = attache_curl_easy_setopt_write(handle) { pointer, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.receiveBody(UnsafeRawBufferPointer(start: pointer, count: size * count))
        }
        try easy.set(CURLOPT_WRITEDATA, pointer: context)
        _ = attache_curl_easy_setopt_read(handle) { pointer, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.supplyBody(into: UnsafeMutableRawBufferPointer(start: pointer, count: size * count))
        }
        try easy.set(CURLOPT_READDATA, pointer: context)
        _ = attache_curl_easy_setopt_seek(handle) { context, offset, origin in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            guard origin == SEEK_SET else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
            return transfer.rewindBody(to: Int64(offset)) ? Int32(CURL_SEEKFUNC_OK) : Int32(CURL_SEEKFUNC_FAIL)
        }
        try easy.set(CURLOPT_SEEKDATA, pointer: context)
        _ = attache_curl_easy_setopt_xferinfo(handle) { context, _, downloaded, _, uploaded in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            transfer.observe(downloaded: Int64(downloaded), uploaded: Int64(uploaded))
            return 0
        }
        try easy.set(CURLOPT_XFERINFODATA, pointer: context)
        try easy.set(CURLOPT_NOPROGRESS, 0)
    }

    /// Checks the address of every socket before it connects, and of every connection (new or reused, on each
    /// redirect hop) before a request goes out on it.
    private func installAddressChecks(on easy: CurlEasy, context: UnsafeMutableRawPointer) throws(HTTPTransportError) {
        let handle = easy.handle
        // Through a proxy the proxy's address is the one connected, and the source's would go unchecked.
        try easy.set(CURLOPT_PROXY, "")
        _ = attache_curl_easy_setopt_opensocket(handle) { context, _, address in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            guard let address, let check = transfer.spec.downloadGuard,
                  check.admitsSocket(to: address, handle: transfer.easy?.handle)
            else { return CURL_SOCKET_BAD }
            return socket(address.pointee.family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue),
                          address.pointee.protocol)
        }
        try easy.set(CURLOPT_OPENSOCKETDATA, pointer: context)
        _ = attache_curl_easy_setopt_prereq(handle) { context, primaryIP, _, _, _ in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            guard let check = transfer.spec.downloadGuard,
                  check.admitsRequest(primaryIP: primaryIP, handle: transfer.easy?.handle)
            else { return CURL_PREREQFUNC_ABORT }
            return CURL_PREREQFUNC_OK
        }
        try easy.set(CURLOPT_PREREQDATA, pointer: context)
    }

    private func setMethodAndBody(on easy: CurlEasy) throws(HTTPTransportError) {
        let method = spec.request.method.uppercased()
        if case .none = spec.body {
            switch method {
            case "GET": try easy.set(CURLOPT_HTTPGET, 1)
            case "HEAD": try easy.set(CURLOPT_NOBODY, 1)
            case "POST":
                try easy.set(CURLOPT_POST, 1)
                try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: 0)
            default: try easy.set(CURLOPT_CUSTOMREQUEST, method)
            }
            return
        }
        if sendsBodyWithHead {
            // libcurl sends a whole body with the head only on its POST path; CUSTOMREQUEST renames the method.
            try easy.set(CURLOPT_POST, 1)
            if method != "POST" { try easy.set(CURLOPT_CUSTOMREQUEST, method) }
            try handBody(to: easy)
            return
        }
        // A known size makes libcurl send Content-Length rather than chunked encoding.
        if method == "POST" {
            try easy.set(CURLOPT_POST, 1)
            try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: uploadSize)
        } else {
            try easy.set(CURLOPT_UPLOAD, 1)
            try easy.set(CURLOPT_INFILESIZE_LARGE, offset: uploadSize)
            if method != "PUT" { try easy.set(CURLOPT_CUSTOMREQUEST, method) }
        }
        try easy.set(CURLOPT_UPLOAD_BUFFERSIZE, spec.uploadBufferSize)
    }

    /// Hands a small body to libcurl whole, read through the same `supplyBody` a streamed body uses: a file that
    /// ends before its announced size fails the transfer with the same error either way.
    private func handBody(to easy: CurlEasy) throws(HTTPTransportError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(uploadSize), alignment: 16)
        var filled = 0
        while filled < buffer.count {
            let count = supplyBody(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            guard count > 0, count != Int(CURL_READFUNC_ABORT) else {
                buffer.deallocate()
                throw failure ?? HTTPTransportError(.localFile, "the request body ended early", retryable: false)
            }
            filled += count
        }
        try easy.setOwnedBody(buffer)
    }

    /// The largest body sent with the request head (libcurl's own limit for doing so). Two writes per request
    /// were a measurable share of a small upload's cost, and the server's too; a larger body is streamed.
    static let bodyWithHeadLimit: Int64 = 64 << 10

    /// Whether libcurl gets the whole body up front and sends it with the request head (no read callbacks).
    /// A body sent within rate caps is always streamed: it is read only as the caps allow.
    var sendsBodyWithHead: Bool { uploadSize > 0 && uploadSize <= Self.bodyWithHeadLimit && spec.throttles.isEmpty }

    /// The request's header lines; libcurl's own `Content-Length` wins, and a body gets no invented type.
    ///
    /// Written into one buffer, each line ended by a NUL, as libcurl's list takes them: a `String` per line (and
    /// its interpolation) was some eight allocations a small upload, and libcurl copies every line anyway.
    private func headerLines() -> CurlHeaderLines {
        var lines = CurlHeaderLines(capacity: spec.request.headers.reduce(32) { $0 + $1.name.utf8.count + $1.value.utf8.count + 3 })
        var hasContentType = false
        var hasExpect = false
        for header in spec.request.headers {
            let name = header.name
            if name.equalsIgnoringASCIICase("Content-Length") || name.equalsIgnoringASCIICase("Transfer-Encoding") {
                continue
            }
            if name.equalsIgnoringASCIICase("Content-Type") { hasContentType = true }
            if name.equalsIgnoringASCIICase("Expect") { hasExpect = true }
            lines.append(name: header.name, value: header.value)
        }
        // libcurl's POST path, which a body sent with the head takes whatever the method, would add a form type.
        if spec.request.method.uppercased() == "POST" || sendsBodyWithHead, !hasContentType {
            lines.append(removing: "Content-Type")
        }
        if uploadSize > 0, uploadSize < Self.expectContinueThreshold, !hasExpect {
            lines.append(removing: "Expect")
        }
        return lines
    }

    /// The smallest body worth asking the server for `100 Continue` first (libcurl's own threshold from 8.0; this
    /// libcurl asks from 1 KiB). A smaller body costs less to send than the extra round trip the question takes.
    static let expectContinueThreshold: Int64 = 1 << 20

    /// A duration in whole seconds, rounded up, at least 1 (libcurl's low-speed window has no finer unit).
    static func wholeSeconds(_ duration: Duration) -> Int {
        let parts = duration.components
        return max(1, Int(parts.seconds) + (parts.attoseconds > 0 ? 1 : 0))
    }

    /// A duration in whole milliseconds, at least 1 (libcurl reads 0 as "no limit").
    static func milliseconds(_ duration: Duration) -> Int {
        let parts = duration.components
        return max(1, Int(parts.seconds) * 1000 + Int(parts.attoseconds / 1_000_000_000_000_000))
    }
}
