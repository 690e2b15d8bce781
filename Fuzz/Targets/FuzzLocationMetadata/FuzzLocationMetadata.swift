import Foundation
import FuzzSupport
@testable import Staging

/// One scratch file for the whole run, unlinked at once: the stripper reads through a descriptor.
let scratch: Int32 = {
    var template = Array("/tmp/attache-fuzz-location-XXXXXX".utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    check(descriptor >= 0, "cannot create the scratch file")
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    return descriptor
}()

/// Feeds arbitrary files to `LocationMetadata.erase(in:changed:)`. Every changed segment lies inside the file and
/// keeps its length (edits are in place), and a stripped file has no location left to remove: stripping it again
/// changes nothing, except that it may zero an EXIF block whole (what the stripper does with a block it cannot parse
/// safely).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let original = Array(UnsafeBufferPointer(start: data, count: size))
    let stripped = apply(edits(of: original), to: original)
    for edit in edits(of: stripped) {
        let range = Int(edit.offset)..<Int(edit.offset) + edit.bytes.count
        guard !stripped[range].elementsEqual(edit.bytes) else { continue }
        let zeroesWholeBlock = edit.bytes.starts(with: exifHeader) && edit.bytes.dropFirst(exifHeader.count).allSatisfy { $0 == 0 }
        check(zeroesWholeBlock, "a stripped file still had location to remove at \(edit.offset)")
    }
    return 0
}

/// What starts an EXIF APP1 payload; the TIFF block follows.
private let exifHeader = Array("Exif".utf8) + [0, 0]

/// One changed segment payload and where it starts in the file.
private struct Edit {
    let offset: Int64
    let bytes: [UInt8]
}

/// The stripper's edits of `file`, each checked to lie inside it.
private func edits(of file: [UInt8]) -> [Edit] {
    check(ftruncate(scratch, 0) == 0 && pwrite(scratch, file, file.count, 0) == file.count, "cannot write the scratch file")
    var edits: [Edit] = []
    do {
        _ = try LocationMetadata.erase(in: scratch) { payload, offset in edits.append(Edit(offset: offset, bytes: Array(payload))) }
    } catch {
        check(false, "reading the scratch file failed: \(error)")
    }
    for edit in edits {
        check(edit.offset >= 0 && edit.offset + Int64(edit.bytes.count) <= Int64(file.count), "an edit lies outside the file")
    }
    return edits
}

private func apply(_ edits: [Edit], to file: [UInt8]) -> [UInt8] {
    var result = file
    for edit in edits {
        result.replaceSubrange(Int(edit.offset)..<Int(edit.offset) + edit.bytes.count, with: edit.bytes)
    }
    return result
}
