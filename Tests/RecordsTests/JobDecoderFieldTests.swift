import Foundation
@testable import Records
import Testing
import UploadEngine
import WireFormat


/// How record fields are read: JSON types, `null`, numbers, the order problems are found in, lenient file entries.
/// The expected values are what the decoder has always produced, so that reading records stays the same.
@Suite struct JobDecoderFieldTests {
    private static let receiverAndFiles = #""receiver": {"id": "u", "type": "user"}, "files": []"#

    /// A record with a valid receiver and no files, plus `extra` members.
    private static func record(_ extra: String) -> String {
        "{\(receiverAndFiles), \(extra)}"
    }

    private static func upload(sender: String? = nil, parentMessageId: String? = nil, concurrency: Int? = nil,
                               files: [FileItem] = [], message: MessageOptions = MessageOptions()) -> Result<JobCommand, InvalidJob> {
        .success(.upload(UploadJob(requestId: "attache.jobs/2/41", batchId: "trip-42", receiver: Receiver(id: "u", type: .user),
                                   sender: sender, parentMessageId: parentMessageId, concurrency: concurrency,
                                   files: inlineOrigins(files), message: message)))
    }

    /// Inline files keep the record that carried them (partition 2, offset 41) and their index in it.
    static func inlineOrigins(_ files: [FileItem]) -> [FileItem] {
        files.enumerated().map { index, file in
            var file = file
            if case .data = file.source { file.origin = RecordOrigin(partition: 2, offset: 41, index: index) }
            return file
        }
    }

    private static func invalid(_ reason: String) -> Result<JobCommand, InvalidJob> {
        .failure(InvalidJob(reason))
    }

    private func decode(_ json: String) -> Result<JobCommand, InvalidJob> {
        decode(Array(json.utf8))
    }

    private func decode(_ bytes: [UInt8]) -> Result<JobCommand, InvalidJob> {
        JobDecoder(limits: UploadLimits()).decode(bytes, from: JobDecoder.Provenance(topic: "attache.jobs", partition: 2, offset: 41, key: "trip-42"))
    }

    @Test(arguments: [
        record(#""kind": null"#), record(#""requestId": null"#), record(#""batchId": null"#), record(#""sender": null"#),
        record(#""parentMessageId": null"#), record(#""concurrency": null"#), record(#""fileId": null"#),
        record(#""message": null"#), record(#""message": {"send": null, "caption": null, "metadata": null, "tags": null}"#),
        record(#""stripLocation": null"#), record(#""unknown": [1, {"x": null}]"#),
    ])
    func nullReadsAsAnAbsentField(json: String) {
        #expect(decode(json) == Self.upload())
    }

    @Test(arguments: [
        (#"{"receiver": null, "files": []}"#, "receiver is required"),
        (#"{"receiver": {"id": null, "type": "user"}, "files": []}"#, "receiver.id must be a non-empty string"),
        (#"{"receiver": {"id": "u", "type": null}, "files": []}"#, "receiver.type must be user or group"),
        (#"{"receiver": {"id": "u", "type": "user"}, "files": null}"#, "files must be an array"),
    ])
    func nullInARequiredFieldIsReportedAsMissing(json: String, reason: String) {
        #expect(decode(json) == Self.invalid(reason))
    }

    @Test(arguments: [
        (record(#""kind": 1"#), "kind has the wrong type"),
        (record(#""requestId": 1"#), "requestId has the wrong type"),
        (record(#""batchId": 1"#), "batchId has the wrong type"),
        (#"{"receiver": "u", "files": []}"#, "receiver has the wrong type"),
        (#"{"receiver": [], "files": []}"#, "receiver has the wrong type"),
        (#"{"receiver": {"id": ["u"], "type": "user"}, "files": []}"#, "receiver.id has the wrong type"),
        (#"{"receiver": {"id": "u", "type": 1}, "files": []}"#, "receiver.type has the wrong type"),
        (record(#""sender": 1"#), "sender has the wrong type"),
        (record(#""parentMessageId": true"#), "parentMessageId has the wrong type"),
        (record(#""parentMessageId": {}"#), "parentMessageId has the wrong type"),
        (record(#""parentMessageId": 12.5"#), "parentMessageId has the wrong type"),
        (record(#""parentMessageId": 9223372036854775808"#), "parentMessageId has the wrong type"),
        (record(#""concurrency": "3""#), "concurrency has the wrong type"),
        (record(#""concurrency": true"#), "concurrency has the wrong type"),
        (record(#""fileId": 1"#), "fileId has the wrong type"),
        (#"{"receiver": {"id": "u", "type": "user"}, "files": "x"}"#, "files has the wrong type"),
        (record(#""message": "x""#), "message has the wrong type"),
        (record(#""message": []"#), "message has the wrong type"),
        (record(#""message": {"send": 1}"#), "message.send has the wrong type"),
        (record(#""message": {"send": "manual", "caption": 1}"#), "message.caption has the wrong type"),
        (record(#""message": {"metadata": []}"#), "message.metadata has the wrong type"),
        (record(#""message": {"metadata": "x"}"#), "message.metadata has the wrong type"),
        (record(#""message": {"tags": "x"}"#), "message.tags has the wrong type"),
        (record(#""message": {"tags": {}}"#), "message.tags has the wrong type"),
        (record(#""message": {"tags": ["a", 1]}"#), "message.tags[1] has the wrong type"),
        (record(#""message": {"tags": ["a", null]}"#), "message.tags[1] is null"),
        (record(#""stripLocation": 1"#), "stripLocation has the wrong type"),
        (record(#""stripLocation": "true""#), "stripLocation has the wrong type"),
        (#"{"kind": "clear", "batchId": "b", "files": 1}"#, "files has the wrong type"),
        (#"{"kind": "clear", "batchId": "b", "receiver": 1}"#, "receiver has the wrong type"),
        (#"{"kind": "configure", "batchId": "b", "concurrency": "5"}"#, "concurrency has the wrong type"),
        (#"{"kind": "retry", "batchId": "b", "fileId": 1}"#, "fileId has the wrong type"),
    ])
    func aWrongTypeNamesTheField(json: String, reason: String) {
        #expect(decode(json) == Self.invalid(reason))
    }

    @Test(arguments: [
        (#"{"kind": 1, "receiver": 2, "files": 3}"#, "kind has the wrong type"),
        (#"{"receiver": 2, "kind": 1, "files": 3}"#, "kind has the wrong type"),
        (#"{"files": 3, "receiver": {"id": 1}}"#, "receiver.id has the wrong type"),
        (#"{"receiver": {"type": 1, "id": 2}, "files": []}"#, "receiver.id has the wrong type"),
        (#"{"message": {"tags": 1, "send": 2}, "receiver": {"id": "u", "type": "user"}, "files": []}"#, "message.send has the wrong type"),
        (#"{"message": {"tags": 1}, "stripLocation": 2, "receiver": {"id": "u", "type": "user"}, "files": []}"#, "message.tags has the wrong type"),
        (#"{"message": {"send": "bad"}, "concurrency": 0, "receiver": {"id": "u", "type": "user"}, "files": []}"#, "concurrency must be between 1 and 1000"),
        (#"{"message": {"send": 1}, "concurrency": 0, "receiver": {"id": "u", "type": "user"}, "files": []}"#, "message.send has the wrong type"),
    ])
    func typesAreCheckedFieldByFieldBeforeMeaning(json: String, reason: String) {
        #expect(decode(json) == Self.invalid(reason))
    }

    @Test(arguments: [
        (record(#""parentMessageId": "p1""#), upload(parentMessageId: "p1")),
        (record(#""parentMessageId": 12"#), upload(parentMessageId: "12")),
        (record(#""parentMessageId": -12"#), upload(parentMessageId: "-12")),
        (record(#""parentMessageId": 12.0"#), upload(parentMessageId: "12")),
        (record(#""parentMessageId": 1e3"#), upload(parentMessageId: "1000")),
        (record(#""parentMessageId": 9223372036854775807"#), upload(parentMessageId: "9223372036854775807")),
        (record(#""parentMessageId": -9223372036854775808"#), upload(parentMessageId: "-9223372036854775808")),
        (record(#""concurrency": 3.0"#), upload(concurrency: 3)),
        (record(#""concurrency": 3e0"#), upload(concurrency: 3)),
        (record(#""concurrency": 30e-1"#), upload(concurrency: 3)),
        (record(#""concurrency": 1000"#), upload(concurrency: 1000)),
        (record(#""concurrency": 1001"#), invalid("concurrency must be between 1 and 1000")),
        (record(#""concurrency": -0"#), invalid("concurrency must be between 1 and 1000")),
        (#"{"kind": "configure", "batchId": "b", "concurrency": 5.0}"#, .success(.configure(batchId: "b", concurrency: 5))),
        (record(#""sender": "s", "message": {"send": "none", "caption": "c", "tags": ["a", "b"]}"#),
         upload(sender: "s", message: MessageOptions(send: .none, caption: "c", tags: ["a", "b"]))),
    ])
    func integersMayBeWrittenAsWholeNumbersOfAnyForm(json: String, expected: Result<JobCommand, InvalidJob>) {
        #expect(decode(json) == expected)
    }

    @Test(arguments: [
        ("null", "the record is null"),
        ("5", "the record is not a JSON object"),
        (#""str""#, "the record is not a JSON object"),
        ("true", "the record is not a JSON object"),
        ("[]", "the record is not a JSON object"),
        ("", "the record is not valid JSON"),
        ("   ", "the record is not valid JSON"),
        ("{}", "receiver is required"),
        (#"{"kind": "clear", "batchId": "b"}}"#, "the record is not valid JSON"),
        (#"{"kind": "clear", "batchId": "b""#, "the record is not valid JSON"),
        (#"{"kind": "clear", "batchId": "\ud83d"}"#, "the record is not valid JSON"),
        (#"{"kind": "clear", "batchId": "\u00G0"}"#, "the record is not valid JSON"),
        (#"{"kind": "clear", "batchId": "b", "x": NaN}"#, "the record is not valid JSON"),
        (#"{"kind": "clear", "batchId": "b", "x": .5}"#, "the record is not valid JSON"),
        (#"{"kind": "clear", "batchId": "\/\b\f\n\r\t"}"#, "batchId must be 1–128 bytes of printable characters, not blank"),
        (#"{"kind": "Clear", "batchId": "b"}"#, "unknown kind 'Clear'"),
    ])
    func theRecordAsAWholeIsChecked(json: String, reason: String) {
        #expect(decode(json) == Self.invalid(reason))
    }

    @Test func aReceiverIdOfOnlyWhitespaceIsBlank() throws {
        for blank in [" ", #"\t \t"#, #"\u00a0\u3000\u2003"#, #"\u200b"#] {
            let json = #"{"receiver": {"id": "\#(blank)", "type": "user"}, "files": []}"#
            #expect(decode(json) == Self.invalid("receiver.id must be a non-empty string"), "\(blank)")
        }
        // A line break is not blank, but it would reach headers (the presign call): the job is invalid for that.
        #expect(decode(#"{"receiver": {"id": "\n", "type": "user"}, "files": []}"#)
            == Self.invalid("receiver.id must not contain control characters"))
        for (written, id) in [(" u ", " u "), (#"\u200c"#, "\u{200C}")] {
            let json = #"{"receiver": {"id": "\#(written)", "type": "user"}, "files": []}"#
            guard case .upload(let job) = try decode(json).get() else { Issue.record("not an upload"); return }
            #expect(job.receiver.id == id)
        }
    }

    @Test func whitespaceAroundTheRecordIsAllowed() {
        #expect(decode("  \n" + Self.record(#""sender": "s""#) + "\t\r\n") == Self.upload(sender: "s"))
    }

    @Test func escapedKeysAndValuesAreDecoded() {
        #expect(decode(#"{"k\u0069nd": "clear", "b\u0061tchId": "x\"y"}"#) == .success(.clear(batchId: "x\"y")))
        #expect(decode(#"{"kind": "clear", "batchId": "\ud83d\ude80"}"#) == .success(.clear(batchId: "🚀")))
    }

    @Test func metadataKeepsEveryJSONType() {
        let json = Self.record(#""message": {"metadata": {"a": null, "b": [1, 2.5, "x", true, {"c": {}}], "d": -0, "h": -1.5e-3, "i": 9223372036854775808, "j": "\u00e9\ud83d\ude80"}}"#)
        let metadata: [String: JSONValue] = ["a": .null, "b": [1, 2.5, "x", true, ["c": [:]]], "d": 0, "h": -0.0015,
                                             "i": .double(0x1p63), "j": "é🚀"]
        #expect(decode(json) == Self.upload(message: MessageOptions(metadata: metadata)))
    }

    @Test func fileEntriesAreReadOneByOne() {
        let json = #"""
        {"receiver": {"id": "u", "type": "user"}, "files": [
          null, 1, "x", true, [], {},
          {"fileId": 5, "source": {"data": "aGk="}},
          {"fileId": null, "source": {"data": "aGk="}},
          {"fileId": "n", "name": null, "mimeType": null, "size": null, "stripLocation": null, "source": {"data": "aGk="}},
          {"fileId": "s0", "source": null},
          {"fileId": "s1", "source": "x"},
          {"fileId": "s2", "source": {}},
          {"fileId": "s3", "source": {"url": null, "path": "p/q.txt"}},
          {"fileId": "s4", "source": {"url": 1}},
          {"fileId": "s5", "source": {"data": ""}},
          {"fileId": "s6", "source": {"data": "aGk"}},
          {"fileId": "s7", "source": {"url": "https://x.test/a/b.png?x=1"}},
          {"fileId": "s8", "source": {"url": "https://x.test/"}},
          {"fileId": "t1", "stripLocation": "yes", "source": {"data": "aGk="}},
          {"fileId": "t2", "name": 1, "source": {"data": "aGk="}},
          {"fileId": "t3", "mimeType": [], "source": {"data": "aGk="}}
        ]}
        """#
        let hi = FileSource.data(Data("hi".utf8))
        let broken = FileSource.malformed("the file entry is not a valid object")
        // Without a fileId the file is malformed for that first, as intake reports a file's first problem.
        let noId = FileSource.malformed("fileId must be 1–128 bytes of printable characters, not blank")
        let expected = Array(repeating: FileItem(fileId: "", name: "file", source: broken), count: 5) + [
            FileItem(fileId: "", name: "file", source: noId),
            FileItem(fileId: "", name: "file", source: broken),
            FileItem(fileId: "", name: "file", source: noId),
            FileItem(fileId: "n", name: "file", source: hi),
            FileItem(fileId: "s0", name: "file", source: .malformed("source is required")),
            FileItem(fileId: "s1", name: "file", source: broken),
            FileItem(fileId: "s2", name: "file", source: .malformed("source must have exactly one of url, path, data")),
            FileItem(fileId: "s3", name: "q.txt", source: .path("p/q.txt")),
            FileItem(fileId: "s4", name: "file", source: broken),
            FileItem(fileId: "s5", name: "file", source: .data(Data())),
            FileItem(fileId: "s6", name: "file", source: .malformed("source.data is not valid base64")),
            FileItem(fileId: "s7", name: "b.png", source: .url("https://x.test/a/b.png?x=1")),
            FileItem(fileId: "s8", name: "file", source: .url("https://x.test/")),
            FileItem(fileId: "t1", name: "file", source: broken),
            FileItem(fileId: "t2", name: "file", source: broken),
            FileItem(fileId: "t3", name: "file", source: broken),
        ]
        #expect(decode(json) == Self.upload(files: expected))
    }

    @Test(arguments: [
        ("10", Int64?.some(10)), ("10.0", 10), ("1e3", 1000), ("-1", -1), ("9223372036854775807", .max), ("9.2e18", 9_200_000_000_000_000_000),
        ("10.5", nil), ("9223372036854775808", nil), ("9.3e18", nil), (#""big""#, nil),
    ])
    func aFileSizeIsAWholeNumberThatFitsSixtyFourBits(size: String, declared: Int64?) throws {
        let json = #"{"receiver": {"id": "u", "type": "user"}, "files": [{"fileId": "f", "size": \#(size), "source": {"data": "aGk="}}]}"#
        let file = declared.map { FileItem(fileId: "f", name: "file", declaredSize: $0, source: .data(Data("hi".utf8))) }
            ?? FileItem(fileId: "f", name: "file", source: .malformed("the file entry is not a valid object"))
        #expect(decode(json) == Self.upload(files: [file]))
    }

    @Test func theIntakeBenchmarksJobDecodes() {
        let json = #"{"kind":"upload","batchId":"i-1-1","receiver":{"id":"u","type":"user"},"files":[{"fileId":"f1","name":"a.txt","mimeType":"text/plain","source":{"data":""}}],"message":{"send":"none"}}"#
        let job = UploadJob(requestId: "attache.jobs/2/41", batchId: "i-1-1", receiver: Receiver(id: "u", type: .user), sender: nil,
                            parentMessageId: nil, concurrency: nil,
                            files: Self.inlineOrigins([FileItem(fileId: "f1", name: "a.txt", mimeType: "text/plain", source: .data(Data()))]),
                            message: MessageOptions(send: .none))
        #expect(decode(json) == .success(.upload(job)))
    }
}

/// Readings that differ from a lenient decoder on purpose: the record must be strict RFC 8259 JSON everywhere (also in
/// fields the worker ignores), a repeated key keeps its last value, and a number is an integer only when written as one.
extension JobDecoderFieldTests {
    @Test(arguments: [
        record(#""sender": "s","#),
        #"{"receiver": {"id": "u", "type": "user"}, "files": [1,]}"#,
        record(#""x": 01"#), record(#""x": -01"#), record(#""x": 1."#), record(#""x": -"#), record(#""x": 1e"#),
        record(#""x": 1.e3"#), record(#""x": "\U00e9""#), record(#""x": "\'""#), record(#""x": 1e400"#),
        record(#""message": {"metadata": {"x": 1e400}}"#),
        record(#""message": {"metadata": {"x": \#(String(repeating: "[", count: 510))\#(String(repeating: "]", count: 510))}}"#),
    ])
    func aRecordThatIsNotStrictJSONIsInvalid(json: String) {
        #expect(decode(json) == Self.invalid("the record is not valid JSON"))
    }

    @Test(arguments: [
        [0xEF, 0xBB, 0xBF] + Array(record(#""sender": "s""#).utf8),
        Array(record(#""x": ""#).utf8) + [0xC3, 0x28] + Array(#"""#.utf8) + [UInt8(ascii: "}")],
        Array(record(#""x": ""#).utf8) + [0x01] + Array(#"""#.utf8) + [UInt8(ascii: "}")],
    ] as [[UInt8]])
    func aRecordWithBytesJSONDoesNotAllowIsInvalid(bytes: [UInt8]) {
        #expect(decode(bytes) == Self.invalid("the record is not valid JSON"))
    }

    @Test(arguments: [#""concurrency": 3.5"#, #""concurrency": 1e30"#, #""concurrency": 99999999999999999999"#])
    func aConcurrencyThatIsNoIntegerHasTheWrongType(member: String) {
        #expect(decode(Self.record(member)) == Self.invalid("concurrency has the wrong type"))
    }

    @Test func aRepeatedKeyKeepsItsLastValue() {
        #expect(decode(#"{"kind": "clear", "batchId": "a", "batchId": "b"}"#) == .success(.clear(batchId: "b")))
        #expect(decode(#"{"kind": "clear", "batchId": 1, "batchId": "b"}"#) == .success(.clear(batchId: "b")))
        #expect(decode(#"{"kind": "clear", "batchId": "b", "batchId": 1}"#) == Self.invalid("batchId has the wrong type"))
    }

    @Test func metadataNumbersKeepTheFormTheyWereWrittenIn() {
        let json = Self.record(#""message": {"metadata": {"whole": 7, "fraction": 1.0, "exponent": 1e3, "tiny": 1e-400}}"#)
        let metadata: [String: JSONValue] = ["whole": .int(7), "fraction": .double(1), "exponent": .double(1000), "tiny": .double(0)]
        #expect(decode(json) == Self.upload(message: MessageOptions(metadata: metadata)))
    }
}
