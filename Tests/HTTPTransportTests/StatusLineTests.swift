import Testing
@testable import HTTPTransport

/// The status code read from a response's status line in place: three digits after the first space, or 0.
@Suite struct StatusLineTests {
    @Test(arguments: [
        ("HTTP/1.1 200 OK", 200), ("HTTP/2 204", 204), ("HTTP/1.0 503 Service Unavailable", 503),
        ("HTTP/1.1 100 Continue", 100), ("HTTP/1.1 2000 Odd", 0), ("HTTP/1.1 20", 0), ("HTTP/1.1", 0),
        ("HTTP/1.1 abc", 0), ("HTTP/1.1 404Not", 0),
    ])
    func statusCodeOfALine(line: String, code: Int) {
        let bytes = Array(line.utf8)
        let read = bytes.withUnsafeBytes { Transfer.statusCode(of: $0[...]) }
        #expect(read == code, "\(line)")
    }
}
