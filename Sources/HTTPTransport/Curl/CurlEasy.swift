import CCurl

/// One libcurl easy handle and what must outlive it: the header list, the error buffer and a body handed over whole.
///
/// Confined to the transfer thread: created, configured, run and cleaned up there.
final class CurlEasy {
    /// The `CURL *`; valid until deinit.
    let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// The request body libcurl sends from in place (``setOwnedBody(_:)``).
    private var body: UnsafeMutableRawBufferPointer?
    /// Where the handle goes back when this object ends (nil: it is cleaned up).
    private let pool: EasyHandlePool?

    /// Takes a handle from `pool` (or creates one) and points libcurl's error buffer at storage this object owns.
    init(pool: EasyHandlePool? = nil) throws(HTTPTransportError) {
        guard CurlRuntime.isInitialized, let handle = pool?.take() ?? curl_easy_init() else {
            throw HTTPTransportError(.transport, "libcurl could not create a transfer handle", retryable: true)
        }
        self.handle = handle
        self.pool = pool
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        _ = attache_curl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    /// The handle must no longer be attached to a multi handle: its transfer was removed from the loop first.
    deinit {
        // Reset (in the pool) or cleaned up before the header list and error buffer it points at are freed.
        if let pool { pool.giveBack(handle) } else { curl_easy_cleanup(handle) }
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
        body?.deallocate()
    }

    /// libcurl's detailed message for the last failure (may be empty).
    var errorDetail: String { String(cString: errorBuffer) }

    /// Sets a `long` option.
    func set(_ option: CURLoption, _ value: Int) throws(HTTPTransportError) {
        try check(attache_curl_easy_setopt_long(handle, option, value), option)
    }

    /// Sets a `curl_off_t` option (sizes).
    func set(_ option: CURLoption, offset value: Int64) throws(HTTPTransportError) {
        try check(attache_curl_easy_setopt_off(handle, option, curl_off_t(value)), option)
    }

    /// Sets a string option; libcurl copies the string.
    ///
    /// Lent through `withCString`: a `String` passed where C wants a `char *` is converted with `utf8CString`,
    /// which allocates an array for every string short enough to be stored inline (a method, a scheme list, most
    /// header lines) — some ten allocations a small upload.
    func set(_ option: CURLoption, _ value: String) throws(HTTPTransportError) {
        let code = value.withCString { attache_curl_easy_setopt_string(handle, option, $0) }
        try check(code, option)
    }

    /// Sets a pointer option (callback context, private data, error buffer).
    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws(HTTPTransportError) {
        try check(attache_curl_easy_setopt_pointer(handle, option, value), option)
    }

    /// Makes `bytes` the request body, sent from where it is: this object owns it from now on and frees it after
    /// the handle is reset, as it does the header list (`CURLOPT_COPYPOSTFIELDS` copied every small file's bytes
    /// once more). Unlike a body read through the read callback, a body of at most 64 KiB leaves in the same write
    /// as the request head: one segment instead of two.
    func setOwnedBody(_ bytes: UnsafeMutableRawBufferPointer) throws(HTTPTransportError) {
        body?.deallocate()
        body = bytes
        try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(bytes.count))
        try check(attache_curl_easy_setopt_pointer(handle, CURLOPT_POSTFIELDS, bytes.baseAddress), CURLOPT_POSTFIELDS)
    }

    /// Replaces the request's header lines; libcurl copies each line.
    func setHeaderLines(_ lines: CurlHeaderLines) throws(HTTPTransportError) {
        var list: UnsafeMutablePointer<curl_slist>?
        let built = lines.forEachLine { line in
            guard let extended = curl_slist_append(list, line) else { return false }
            list = extended
            return true
        }
        guard built else {
            curl_slist_free_all(list)
            throw HTTPTransportError(.transport, "out of memory building request headers", retryable: true)
        }
        try check(attache_curl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, list), CURLOPT_HTTPHEADER)
        curl_slist_free_all(headerList)
        headerList = list
    }

    /// The last response status libcurl saw (0 when none arrived).
    var responseCode: Int {
        var code = 0
        _ = attache_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// Bytes of the request body sent so far.
    var uploadedBytes: Int64 {
        var value: curl_off_t = 0
        _ = attache_curl_easy_getinfo_off(handle, CURLINFO_SIZE_UPLOAD_T, &value)
        return Int64(value)
    }

    private func check(_ result: CURLcode, _ option: CURLoption) throws(HTTPTransportError) {
        guard result == CURLE_OK else {
            throw HTTPTransportError(
                .transport, "libcurl refused option \(option.rawValue): \(CurlRuntime.describe(result))",
                curlCode: Int(result.rawValue), retryable: false)
        }
    }
}
