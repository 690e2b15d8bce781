import FuzzSupport
import WireFormat

/// Feeds arbitrary bytes to `JSONParser`. Whatever parses must survive a write and a second parse unchanged, and
/// writing is canonical: the second write gives the same bytes as the first.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    guard let value = try? JSONParser.parse(input) else { return 0 }
    var writer = JSONWriter()
    writer.value(value)
    let reparsed: JSONValue
    do {
        reparsed = try JSONParser.parse(writer.bytes)
    } catch {
        fatalError("the writer's output does not parse: \(error)")
    }
    check(reparsed == value, "a write and a parse changed the value")
    var again = JSONWriter()
    again.value(reparsed)
    check(again.bytes == writer.bytes, "writing the same value twice gave different bytes")
    return 0
}
