import CMicroHTTPD

/// The version of the libmicrohttpd this build links against.
public enum MicroHTTPDLibrary {
    public static var version: String { String(cString: MHD_get_version()) }
}
