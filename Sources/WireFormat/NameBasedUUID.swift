import Foundation

/// RFC 9562 version-5 (SHA-1, name-based) UUIDs: the same namespace and name always give the same UUID.
///
/// Used for message muids, event ids and object keys, so a redelivered job gives the same ids and their consumers
/// can deduplicate. SHA-1 is used here only as the RFC prescribes for v5, not for security. Every event of every job
/// makes one, so nothing here allocates but the returned string.
public enum NameBasedUUID {
    /// The namespace of Attache's message ids.
    public static let messageNamespace = UUID(uuidString: "6d3c1f0e-8a4b-5e2f-9c71-a77ac4e0b1d2")!

    public static func make(namespace: UUID, name: String) -> UUID {
        make(namespace: namespace, joining: [name])
    }

    /// The UUID of `parts` joined by NUL bytes (which ids cannot contain, so the joined name is unambiguous), without
    /// joining them first.
    public static func make(namespace: UUID, joining parts: [String]) -> UUID {
        var hash = SHA1()
        withUnsafeBytes(of: namespace.uuid) { hash.update($0) }
        for index in parts.indices {
            if index > 0 { hash.update(byte: 0) }
            let utf8 = parts[index].utf8
            // Read in place; a string without contiguous UTF-8 (bridged) is read byte by byte, never copied.
            if utf8.withContiguousStorageIfAvailable({ hash.update(UnsafeRawBufferPointer($0)) }) == nil {
                for byte in utf8 { hash.update(byte: byte) }
            }
        }
        let digest = hash.finish()
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { bytes in
            bytes.storeBytes(of: digest.0.bigEndian, toByteOffset: 0, as: UInt32.self)
            bytes.storeBytes(of: digest.1.bigEndian, toByteOffset: 4, as: UInt32.self)
            bytes.storeBytes(of: digest.2.bigEndian, toByteOffset: 8, as: UInt32.self)
            bytes.storeBytes(of: digest.3.bigEndian, toByteOffset: 12, as: UInt32.self)
            bytes[6] = (bytes[6] & 0x0F) | 0x50
            bytes[8] = (bytes[8] & 0x3F) | 0x80
        }
        return UUID(uuid: uuid)
    }

    /// The lower-case text form of a name-based UUID of `parts` (see ``make(namespace:joining:)``).
    public static func string(namespace: UUID, joining parts: [String]) -> String {
        lowercased(make(namespace: namespace, joining: parts))
    }

    /// `uuid`'s canonical form in lower case, made in one allocation.
    public static func lowercased(_ uuid: UUID) -> String {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                let digits: StaticString = "0123456789abcdef"
                var at = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    text[at] = digits.utf8Start[Int(byte >> 4)]
                    text[at + 1] = digits.utf8Start[Int(byte & 0x0F)]
                    at += 2
                }
                return at
            }
        }
    }
}
