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
/// stripped file has no location left to remove: stripping it again changes nothing, except that it may zero an
/// EXIF block whole (what the stripper does with a block it cannot parse safely).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let original = Array(UnsafeBufferPointer(start: data, count: size))
    let stripped = apply(edits(of: original), to: original)
    for edit in edits(of: stripped) {
        let range = Int(edit.offset)..<Int(edit.offset) + edit.bytes.count
        guard !stripped[range].elementsEqual(edit.bytes) else { continue }
        let zeroesWholeBlock = range.lowerBound >= exifHeader.count
            && stripped[(range.lowerBound - exifHeader.count)..<range.lowerBound].elementsEqual(exifHeader)
            && edit.bytes.allSatisfy { $0 == 0 }
        check(zeroesWholeBlock, "a stripped file still had location to remove at \(edit.offset)")
    }
    return 0
}

/// What starts an EXIF APP1 payload; the TIFF block follows.
private let exifHeader = Array("Exif".utf8) + [0, 0]

/// The stripper's edits of `file`, each checked to lie inside it.
private func edits(of file: [UInt8]) -> [LocationMetadata.Edit] {
    check(ftruncate(scratch, 0) == 0 && pwrite(scratch, file, file.count, 0) == file.count, "cannot write the scratch file")
    let edits = LocationMetadata.edits(in: scratch)
    for edit in edits {
        check(edit.offset >= 0 && edit.offset + Int64(edit.bytes.count) <= Int64(file.count), "an edit lies outside the file")
    }
    return edits
}

private func apply(_ edits: [LocationMetadata.Edit], to file: [UInt8]) -> [UInt8] {
    var result = file
    for edit in edits {
        result.replaceSubrange(Int(edit.offset)..<Int(edit.offset) + edit.bytes.count, with: edit.bytes)
    }
    return result
}
