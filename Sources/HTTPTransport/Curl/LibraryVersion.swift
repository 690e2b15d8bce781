import CCurl

/// The version of the libcurl this build links against.
public enum CurlLibrary {
    public static var version: String { String(cString: curl_version()) }
}
