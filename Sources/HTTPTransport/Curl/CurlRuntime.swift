import CCurl

/// Process-wide libcurl set-up, done once before the first handle is made.
enum CurlRuntime {
    /// Runs `curl_global_init` exactly once (Swift initialises a static `let` once, thread-safely).
    static let isInitialized: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK

    /// libcurl's text for a result code.
    static func describe(_ code: CURLcode) -> String {
        String(cString: curl_easy_strerror(code))
    }
}
