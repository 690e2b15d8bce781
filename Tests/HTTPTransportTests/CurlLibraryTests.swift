import Testing
@testable import HTTPTransport

@Suite struct CurlLibraryTests {
    @Test func linksLibcurlWithOpenSSL() {
        #expect(CurlLibrary.version.contains("libcurl/"))
        #expect(CurlLibrary.version.contains("OpenSSL"))
    }
}
