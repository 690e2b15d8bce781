import Foundation
import FuzzSupport
import WireFormat
@testable import Worker

/// Feeds arbitrary text to the configuration's value parsers and arbitrary files and environment values to
/// `ConfigurationLoader.load`, which must answer every one with a configuration or an error, never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)

    if let size = ConfigurationValue.size(text) {
        check(size >= 0, "a negative size")
        check(ConfigurationValue.size("\(size)") == size, "a size does not read back as bytes")
    }
    if let duration = ConfigurationValue.duration(text) {
        check(duration >= .zero, "a negative duration")
    }
    _ = ConfigurationValue.bool(text)
    for element in ConfigurationValue.list(text) {
        check(!element.isEmpty && !element.contains(","), "a list element is empty or holds a comma")
        check(element.trimmingCharacters(in: .whitespaces) == element, "a list element is not trimmed")
    }
    // Bytes, not characters: a combining mark after the prefix's `_` makes another character of it.
    check(ConfigurationValue.environmentName(of: text).utf8.starts(with: "ATTACHE_".utf8), "a variable without the prefix")

    _ = try? ConfigurationLoader.load(json: bytes, environment: [:])
    // The same text as the environment value of one key, chosen by the first byte.
    let key = ConfigurationKey.all[Int(bytes.first ?? 0) % ConfigurationKey.all.count]
    let value = String(decoding: bytes.dropFirst(), as: UTF8.self)
    _ = try? ConfigurationLoader.load(json: nil, environment: [ConfigurationValue.environmentName(of: key.path): value])
    return 0
}
