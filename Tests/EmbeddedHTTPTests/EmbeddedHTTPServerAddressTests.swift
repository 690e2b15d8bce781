import Foundation
import Glibc
import TestSupport
import Testing
@testable import EmbeddedHTTP

/// Whether this machine has the IPv6 loopback address, which some containers lack.
private let hasIPv6Loopback: Bool = {
    let descriptor = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_in6()
    address.sin6_family = sa_family_t(AF_INET6)
    address.sin6_addr = in6addr_loopback
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
        }
    }
}()

@Suite struct EmbeddedHTTPServerAddressTests {
    @Test func defaultServerListensOnIPv4Loopback() throws {
        let server = try EmbeddedHTTPServer { _ in .respond(.text(200, "ok")) }
        defer { server.stop() }

        #expect(server.host == "127.0.0.1")
        #expect(server.port != 0)
        #expect(server.baseURL == "http://127.0.0.1:\(server.port)")
    }

    @Test func serverOnAnotherLoopbackAddressAnswersThereAndNotOn127001() async throws {
        // A token only this server answers with: a server of a parallel test may hold the same port on 127.0.0.1.
        let token = UUID().uuidString
        let server = try EmbeddedHTTPServer(host: "127.0.0.2") { _ in .respond(.text(200, token)) }
        defer { server.stop() }

        let there = try await Curl.run(["\(server.baseURL)/x"])
        let onDefault = try await Curl.run(["http://127.0.0.1:\(server.port)/x"])

        #expect(server.host == "127.0.0.2")
        #expect(server.baseURL == "http://127.0.0.2:\(server.port)")
        #expect(there.status == 200)
        #expect(there.bodyText == token)
        #expect(onDefault.bodyText != token)
    }

    @Test(.enabled(if: hasIPv6Loopback)) func serverOnIPv6LoopbackAnswersInBrackets() async throws {
        let token = UUID().uuidString
        let server = try EmbeddedHTTPServer(host: "::1") { _ in .respond(.text(200, token)) }
        defer { server.stop() }

        let result = try await Curl.run(["-g", "\(server.baseURL)/x"])

        #expect(server.host == "::1")
        #expect(server.baseURL == "http://[::1]:\(server.port)")
        #expect(result.status == 200)
        #expect(result.bodyText == token)
    }

    @Test func secondServerOnABusyPortFailsWithAddressInUse() throws {
        let first = try EmbeddedHTTPServer { _ in .respond(.text(200, "first")) }
        defer { first.stop() }

        let error = try #require(throws: EmbeddedHTTPError.self) {
            try EmbeddedHTTPServer(port: first.port) { _ in .respond(.text(200, "second")) }
        }

        #expect(error.code == .addressInUse)
        #expect(error.systemErrorNumber == EADDRINUSE)
        #expect(error.message.contains("127.0.0.1:\(first.port)"))
    }

    @Test func stoppedServerFreesItsPortForTheNextServer() async throws {
        // An address no other test binds, so no parallel test can take the freed port in between.
        let first = try EmbeddedHTTPServer(host: "127.0.0.3") { _ in .respond(.text(200, "first")) }
        let port = first.port
        first.stop()

        // The stopped daemon closed the socket it was given; binding the same port again proves it. A process that a
        // parallel test is spawning holds a copy of every descriptor from its fork until its exec closes them
        // (close-on-exec), so the port may stay taken for a moment: a socket that was never closed stays taken.
        let deadline = ContinuousClock.now + .seconds(2)
        var rebound: EmbeddedHTTPServer?
        while rebound == nil {
            do {
                rebound = try EmbeddedHTTPServer(host: "127.0.0.3", port: port) { _ in .respond(.text(200, "second")) }
            } catch let error as EmbeddedHTTPError where error.code == .addressInUse && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        let second = try #require(rebound)
        defer { second.stop() }

        #expect(second.port == port)
    }

    @Test(arguments: ["example.com", "127.0.0", "256.1.1.1", "", "::g"])
    func hostThatIsNotAnAddressIsRefusedBeforeBinding(host: String) throws {
        let error = try #require(throws: EmbeddedHTTPError.self) {
            try EmbeddedHTTPServer(host: host) { _ in .respond(.text(200, "never")) }
        }

        #expect(error.code == .invalidAddress)
    }

    @Test func addressThatIsNotOnThisMachineFailsToBind() throws {
        // 192.0.2.0/24 is reserved for documentation: no interface has it, so bind fails without any traffic.
        let error = try #require(throws: EmbeddedHTTPError.self) {
            try EmbeddedHTTPServer(host: "192.0.2.1") { _ in .respond(.text(200, "never")) }
        }

        #expect(error.code == .bindFailed)
        #expect(error.systemErrorNumber == EADDRNOTAVAIL)
    }
}
