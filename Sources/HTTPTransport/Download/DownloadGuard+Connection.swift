import CCurl
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reading what libcurl is about to connect to, on the transfer thread.
extension DownloadGuard {
    /// Whether libcurl may open a socket to `address` for the URL currently fetched by `handle`.
    func admitsSocket(to address: UnsafeMutablePointer<curl_sockaddr>, handle: UnsafeMutableRawPointer?) -> Bool {
        admit(Self.ipAddress(of: address), host: Self.currentHost(of: handle))
    }

    /// Whether a request may go out on a connection (new or reused) to `primaryIP` (libcurl's text form).
    func admitsRequest(primaryIP: UnsafePointer<CChar>?, handle: UnsafeMutableRawPointer?) -> Bool {
        admit(primaryIP.flatMap { AddressPolicy.IPAddress(String(cString: $0)) }, host: Self.currentHost(of: handle))
    }

    /// The IP address in a `curl_sockaddr`; nil for any family but IPv4 and IPv6.
    static func ipAddress(of address: UnsafeMutablePointer<curl_sockaddr>) -> AddressPolicy.IPAddress? {
        let offset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr)!
        // libcurl allocates the address with room for the whole family-specific sockaddr behind `addr`.
        let raw = UnsafeRawPointer(address) + offset
        switch address.pointee.family {
        case AF_INET:
            guard Int(address.pointee.addrlen) >= MemoryLayout<sockaddr_in>.size else { return nil }
            var ipv4 = raw.loadUnaligned(as: sockaddr_in.self).sin_addr
            return withUnsafeBytes(of: &ipv4) { AddressPolicy.IPAddress(networkBytes: $0) }
        case AF_INET6:
            guard Int(address.pointee.addrlen) >= MemoryLayout<sockaddr_in6>.size else { return nil }
            var ipv6 = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
            return withUnsafeBytes(of: &ipv6) { AddressPolicy.IPAddress(networkBytes: $0) }
        default:
            return nil
        }
    }

    /// The host of the URL the handle is fetching now: after a redirect, the new hop's host.
    static func currentHost(of handle: UnsafeMutableRawPointer?) -> String? {
        guard let handle else { return nil }
        var current: UnsafeMutablePointer<CChar>?
        guard attache_curl_easy_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &current) == CURLE_OK, let current,
              let parser = curl_url()
        else { return nil }
        defer { curl_url_cleanup(parser) }
        guard curl_url_set(parser, CURLUPART_URL, current, 0) == CURLUE_OK else { return nil }
        var host: UnsafeMutablePointer<CChar>?
        guard curl_url_get(parser, CURLUPART_HOST, &host, 0) == CURLUE_OK, let host else { return nil }
        defer { curl_free(host) }
        return String(cString: host)
    }
}
