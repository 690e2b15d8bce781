import CMicroHTTPD

/// The libmicrohttpd this build links against.
public enum MicroHTTPDLibrary {
    /// The library's version string, e.g. `0.9.75`.
    public static var version: String { String(cString: MHD_get_version()) }
}
