import Foundation
import FuzzSupport
@testable import Worker

/// One scratch file for the whole run, unlinked at once: the stripper reads through a descriptor.
let scratch: Int32 = {
    var template = Array("/tmp/attache-fuzz-location-XXXXXX".utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    check(descriptor >= 0, "cannot create the scratch file")
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    return descriptor
}()

/// Feeds arbitrary files to `LocationMetadata.edits(in:)`. Edits stay inside the file (nothing moves), and a
/// stripped file has no location left to remove: stripping it again at most blanks bytes (zeros, or XMP's spaces),
/// as when a block it can no longer parse is zeroed whole — it never finds another GPS pointer to take out.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let original = Array(UnsafeBufferPointer(start: data, count: size))
    let stripped = strip(original)
    check(stripped.count == original.count, "an edit went past the end of the file")
    let again = strip(stripped)
    check(zip(stripped, again).allSatisfy { $0 == $1 || $1 == 0 || $1 == 0x20 }, "a stripped file still had location to remove")
    return 0
}

private func strip(_ file: [UInt8]) -> [UInt8] {
    check(ftruncate(scratch, 0) == 0 && pwrite(scratch, file, file.count, 0) == file.count, "cannot write the scratch file")
    var result = file
    for edit in LocationMetadata.edits(in: scratch) {
        check(edit.offset >= 0 && edit.offset + Int64(edit.bytes.count) <= Int64(file.count), "an edit lies outside the file")
        result.replaceSubrange(Int(edit.offset)..<Int(edit.offset) + edit.bytes.count, with: edit.bytes)
    }
    return result
}
