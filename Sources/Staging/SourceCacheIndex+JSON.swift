import WireFormat

/// The index file's JSON: `{"version":1,"entries":[{"key","file","size","sha256","sniffedType"?,
/// "validator"?:{"etag"?,"lastModified"?},"lastUsed"}]}`, the shape the index has always had on disk.
extension SourceCacheIndex {
    /// The index a file holds; nil when any part of it is missing or of the wrong type (the whole index is then
    /// ignored and its files count as orphans).
    init?(_ json: JSONValue) {
        guard let version = json["version"]?.wholeNumber, let entries = json["entries"]?.arrayValue else { return nil }
        var read: [SourceCacheEntry] = []
        read.reserveCapacity(entries.count)
        for entry in entries {
            guard let entry = SourceCacheEntry(entry) else { return nil }
            read.append(entry)
        }
        guard let version = Int(exactly: version) else { return nil }
        self.init(version: version, entries: read)
    }

    /// The index as JSON.
    var json: JSONValue {
        ["version": .int(Int64(version)), "entries": .array(entries.map(\.json))]
    }
}

extension SourceCacheEntry {
    /// An entry of the index file; nil when a field is missing or of the wrong type.
    init?(_ json: JSONValue) {
        guard let key = json["key"]?.stringValue, let file = json["file"]?.stringValue,
              let size = json["size"]?.wholeNumber, let sha256 = json["sha256"]?.stringValue,
              let lastUsedNumber = json["lastUsed"]?.wholeNumber, let lastUsed = UInt64(exactly: lastUsedNumber),
              let sniffedType = Self.optional(json["sniffedType"], \.stringValue)
        else { return nil }
        var validator: SourceValidator?
        if let value = json["validator"], value != .null {
            guard value.objectValue != nil, let etag = Self.optional(value["etag"], \.stringValue),
                  let lastModified = Self.optional(value["lastModified"], \.stringValue)
            else { return nil }
            validator = SourceValidator(etag: etag, lastModified: lastModified)
        }
        self.init(key: key, file: file, size: size, sha256: sha256, sniffedType: sniffedType, validator: validator,
                  lastUsed: lastUsed)
    }

    /// The entry as JSON; absent optionals are left out.
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "key": .string(key), "file": .string(file), "size": .int(size), "sha256": .string(sha256),
            "lastUsed": .int(Int64(clamping: lastUsed)),
        ]
        if let sniffedType { members["sniffedType"] = .string(sniffedType) }
        if let validator {
            var fields: [String: JSONValue] = [:]
            if let etag = validator.etag { fields["etag"] = .string(etag) }
            if let lastModified = validator.lastModified { fields["lastModified"] = .string(lastModified) }
            members["validator"] = .object(fields)
        }
        return .object(members)
    }

    /// An optional field: `.some(nil)` when absent or `null`, `.some(value)` when of the right type, nil otherwise.
    private static func optional<T>(_ value: JSONValue?, _ read: (JSONValue) -> T?) -> T?? {
        guard let value, value != .null else { return .some(nil) }
        guard let typed = read(value) else { return nil }
        return .some(typed)
    }
}
