import Foundation
import FuzzSupport
@testable import Worker
import WireFormat

/// Feeds arbitrary bodies to `PresignEndpointAnswer(parsing:)`. A readable answer has one entry per element of its
/// `files` array, and every target has an upper-case method and headers sorted by name.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(bytes: data, count: size)
    guard let answer = try? PresignEndpointAnswer(parsing: body) else { return 0 }
    guard case .object(let root)? = try? JSONParser.parse(body), case .array(let entries)? = root["files"] else {
        fatalError("an answer without a files array was read")
    }
    check(answer.files.count == entries.count, "entries were lost or invented")
    for entry in answer.files {
        guard case .target(let target) = entry.outcome else { continue }
        check(!target.method.isEmpty && target.method == target.method.uppercased(), "method not upper case")
        check(target.headers.map(\.name) == target.headers.map(\.name).sorted(), "headers not sorted by name")
    }
    return 0
}
