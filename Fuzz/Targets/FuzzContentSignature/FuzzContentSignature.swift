import FuzzSupport
@testable import Staging

/// Feeds arbitrary leading bytes to `ContentSignature.sniff` and arbitrary declared types to the compatibility
/// rules. A recognised format is compatible with its own mime type, however it is cased or parameterised, maps back
/// from it, and is staged with it when nothing was declared.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let shown = ContentSignature.sniff(Array(bytes.prefix(ContentSignature.window)))
    if let shown {
        check(ContentSignature(mimeType: shown.mimeType) == shown, "the mime type does not map back")
        check(shown.isCompatible(withDeclared: shown.mimeType), "incompatible with its own mime type")
        check(shown.isCompatible(withDeclared: " \(shown.mimeType.uppercased()) ; charset=binary"), "essence not case- or parameter-blind")
        check(ContentSignature.stagedType(declared: nil, shown: shown) == shown.mimeType, "not staged with its own type")
    }
    let declared = String(decoding: bytes.prefix(128), as: UTF8.self)
    let essence = ContentSignature.essence(of: declared)
    check(ContentSignature.essence(of: essence) == essence, "essence is not idempotent")
    for signature in ContentSignature.allCases {
        _ = signature.isCompatible(withDeclared: declared)
    }
    _ = ContentSignature.stagedType(declared: declared, shown: shown)
    return 0
}
