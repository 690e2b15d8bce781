import Foundation
import UploadEngine
import WireFormat
import Records

/// The one upload job `attache submit` produces (DESIGN §2.1, §9): URLs become `url` sources, local files inline
/// `data` — or, with a path root, `path` sources relative to it —, file ids come from the names, made unique.
public struct SubmitJob: Sendable {
    /// What the command line asked for, before it is checked.
    public struct Request: Sendable {
        public var to: String?
        public var from: String?
        public var batchId: String?
        public var concurrency: String?
        public var caption: String?
        public var send: String?
        public var pathRoot: String?
        public var inputs: [String]

        public init(to: String? = nil, from: String? = nil, batchId: String? = nil, concurrency: String? = nil,
                    caption: String? = nil, send: String? = nil, pathRoot: String? = nil, inputs: [String]) {
            self.to = to
            self.from = from
            self.batchId = batchId
            self.concurrency = concurrency
            self.caption = caption
            self.send = send
            self.pathRoot = pathRoot
            self.inputs = inputs
        }
    }

    /// One file of the job and where the worker finds it.
    public struct File: Sendable, Hashable {
        public enum Source: Sendable, Hashable {
            case url(String)
            case path(String)
            case data(Data)
        }

        public let fileId: String
        public let name: String
        public let source: Source
    }

    /// The limits the worker applies that a job must meet before it is worth producing.
    public struct Limits: Sendable {
        public var inlineMax: Int64
        public var filesPerJob: Int

        public init(inlineMax: Int64, filesPerJob: Int) {
            self.inlineMax = inlineMax
            self.filesPerJob = filesPerJob
        }
    }

    public let batchId: String
    public let sendMode: String
    public let files: [File]
    private let receiver: Receiver
    private let sender: String?
    private let concurrency: Int?
    private let caption: String?

    /// Checks the request and reads the local files; `newBatchId` names a batch when `--batch` does not.
    public init(_ request: Request, limits: Limits, newBatchId: () -> String = { UUID().uuidString.lowercased() }) throws(RecordInputError) {
        guard let to = request.to else { throw RecordInputError("submit needs --to user:ID or group:ID") }
        let parts = to.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, let kind = Receiver.Kind(rawValue: parts[0]), !parts[1].isEmpty, HeaderSafety.isSafe(parts[1]) else {
            throw RecordInputError("--to must be user:ID or group:ID")
        }
        receiver = Receiver(id: parts[1], type: kind)
        if let from = request.from, from.isEmpty || !HeaderSafety.isSafe(from) {
            throw RecordInputError("--from must be a uid without control characters")
        }
        sender = request.from
        batchId = request.batchId ?? newBatchId()
        if let problem = RecordField.batchId.problem(with: batchId, label: "--batch") { throw RecordInputError(problem) }
        if let text = request.concurrency {
            guard let number = Int(text), (1...1000).contains(number) else {
                throw RecordInputError("--concurrency must be a whole number from 1 to 1000")
            }
            concurrency = number
        } else {
            concurrency = nil
        }
        sendMode = request.send ?? "auto"
        guard ["auto", "manual", "none"].contains(sendMode) else { throw RecordInputError("--send must be auto, manual or none") }
        caption = request.caption
        guard !request.inputs.isEmpty else { throw RecordInputError("submit needs at least one FILE or URL") }
        guard request.inputs.count <= limits.filesPerJob else {
            throw RecordInputError("\(request.inputs.count) files, but a job holds at most \(limits.filesPerJob) (limits.filesPerJob)")
        }
        var names = UniqueFileIds()
        var files: [File] = []
        for input in request.inputs {
            let (name, source) = try Self.source(of: input, pathRoot: request.pathRoot, inlineMax: limits.inlineMax)
            files.append(File(fileId: names.take(name), name: name, source: source))
        }
        self.files = files
    }

    /// The record's key: the batch id.
    public var key: [UInt8] { Array(batchId.utf8) }

    /// The job's JSON.
    public var value: [UInt8] {
        var writer = JSONWriter(capacity: 256 + files.count * 128)
        writer.beginObject()
        writer.field("kind", "upload")
        writer.field("batchId", batchId)
        writer.field("receiver", receiver)
        if let sender { writer.field("sender", sender) }
        if let concurrency { writer.field("concurrency", concurrency) }
        writer.key("files")
        writer.beginArray()
        for file in files {
            writer.beginObject()
            writer.field("fileId", file.fileId)
            writer.field("name", file.name)
            writer.key("source")
            writer.beginObject()
            switch file.source {
            case .url(let url): writer.field("url", url)
            case .path(let path): writer.field("path", path)
            case .data(let data): writer.field("data", data.base64EncodedString())
            }
            writer.endObject()
            writer.endObject()
        }
        writer.endArray()
        writer.key("message")
        writer.beginObject()
        writer.field("send", sendMode)
        if let caption { writer.field("caption", caption) }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    private static func source(of input: String, pathRoot: String?, inlineMax: Int64) throws(RecordInputError) -> (String, File.Source) {
        let lowered = input.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            guard let url = URL(string: input), url.host?.isEmpty == false else { throw RecordInputError("'\(input)' is not a valid URL") }
            let last = url.lastPathComponent
            return (last.isEmpty || last == "/" ? "file" : last, .url(input))
        }
        let file = URL(fileURLWithPath: input).standardizedFileURL
        let name = file.lastPathComponent
        if let pathRoot {
            let root = URL(fileURLWithPath: pathRoot).standardizedFileURL.path
            let prefix = root.hasSuffix("/") ? root : root + "/"
            guard file.path.hasPrefix(prefix) else {
                throw RecordInputError("'\(input)' is not inside --path-root \(pathRoot)")
            }
            return (name, .path(String(file.path.dropFirst(prefix.count))))
        }
        let size: Int64
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            guard attributes[.type] as? FileAttributeType == .typeRegular else { throw RecordInputError("'\(input)' is not a regular file") }
            size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        } catch let error as RecordInputError {
            throw error
        } catch {
            throw RecordInputError("cannot read '\(input)'")
        }
        guard size <= inlineMax else {
            throw RecordInputError("'\(input)' is \(size) bytes, more than limits.inlineMax (\(inlineMax)) allows inline; "
                + "give the worker a path with --path-root, or a URL")
        }
        guard let data = FileManager.default.contents(atPath: file.path) else { throw RecordInputError("cannot read '\(input)'") }
        return (name, .data(data))
    }
}
