import WireFormat

/// One element of a record's `files`: a file whose fields have the right types, or a broken entry that the engine
/// rejects on its own while the rest of the job proceeds.
enum RawFileEntry {
    case file(RawFile)
    /// Not an object, or a field of the wrong type; the id is kept when it could be read, so the rejection names it.
    case broken(fileId: String?)

    init(reading element: JSONValue) {
        guard case .object(let members) = element else {
            self = .broken(fileId: nil)
            return
        }
        let fields = RecordFields(members, path: "file")
        do {
            self = .file(try RawFile(reading: fields))
        } catch {
            self = .broken(fileId: try? fields.string("fileId"))
        }
    }
}

/// A file entry whose fields have the right JSON types.
struct RawFile {
    var fileId: String?
    var name: String?
    var mimeType: String?
    var size: Int64?
    var source: RawSource?
    var stripLocation: Bool?

    init(reading fields: RecordFields) throws(InvalidJob) {
        fileId = try fields.string("fileId")
        name = try fields.string("name")
        mimeType = try fields.string("mimeType")
        size = try fields.int64("size")
        source = try fields.object("source").map { fields throws(InvalidJob) in try RawSource(reading: fields) }
        stripLocation = try fields.bool("stripLocation")
    }
}

/// A file's `source` object; which of its fields are set is checked later.
struct RawSource {
    var url: String?
    var path: String?
    var data: String?

    init(reading fields: RecordFields) throws(InvalidJob) {
        url = try fields.string("url")
        path = try fields.string("path")
        data = try fields.string("data")
    }
}
