import Foundation
import FuzzSupport
import S3

/// Feeds arbitrary bodies to `S3ErrorResponse(status:body:)` and arbitrary text through `S3XMLElement.escape`. An
/// error answer has a code or a message and classifies without trapping; escaped text parses back to itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(bytes: data, count: size)
    for status in [200, 403, 503] {
        guard let error = S3ErrorResponse(status: status, body: body) else { continue }
        check(!error.code.isEmpty || !error.message.isEmpty, "an error with neither code nor message")
        check(!error.description.isEmpty, "an empty description")
        check(error.isRetryable == error.uploadError.isRetryable, "retryability disagrees")
        _ = error.isExpiredRequest
    }
    // Text XML can carry as it is (no control characters, no CR, which XML normalises) comes back unchanged.
    let text = String(decoding: body, as: UTF8.self)
    let carriable = text.unicodeScalars.allSatisfy { scalar in
        scalar == "\n" || scalar == "\t" || (scalar.value >= 0x20 && !(0xD800...0xDFFF).contains(scalar.value)
            && scalar.value != 0xFFFE && scalar.value != 0xFFFF && scalar.value != 0xFFFD)
    }
    if carriable, let element = try? S3XMLElement.parse(Data("<a>\(S3XMLElement.escape(text))</a>".utf8)) {
        check(element.text == text, "escaped text did not parse back to itself")
    }
    return 0
}
