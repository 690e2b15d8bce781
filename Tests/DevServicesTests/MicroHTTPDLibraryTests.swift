import Testing
@testable import DevServices

@Suite struct MicroHTTPDLibraryTests {
    @Test func linksLibmicrohttpd() {
        #expect(MicroHTTPDLibrary.version.hasPrefix("0.9."))
    }
}
