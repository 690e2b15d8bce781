import Foundation
import OperatorTools
import Records
import TestSupport
import Testing
import UploadEngine

/// `attache submit`: one job the worker decodes as asked, sources chosen per input, ids unique, refusals clear.
@Suite struct SubmitJobTests {
    private static let limits = SubmitJob.Limits(inlineMax: 1024, filesPerJob: 5)

    private func decoded(_ job: SubmitJob) throws -> UploadJob {
        let decoder = JobDecoder(limits: UploadLimits())
        let provenance = JobDecoder.Provenance(topic: "attache.jobs", partition: 0, offset: 3, key: job.batchId)
        guard case .upload(let upload) = try decoder.decode(job.value, from: provenance).get() else {
            throw RecordInputError("not an upload")
        }
        return upload
    }

    @Test func urlsAndLocalFilesBecomeUrlAndInlineSources() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let small = try directory.patternFile("notes.txt", size: 100)
        let request = SubmitJob.Request(to: "group:g-1", from: "uid-7", batchId: "trip-42", concurrency: "3", caption: "Trip",
                                        send: "manual", inputs: ["https://files.example.com/a/photo.jpg?sig=x", small])
        let upload = try decoded(SubmitJob(request, limits: Self.limits))
        #expect(upload.batchId == "trip-42")
        #expect(upload.receiver == Receiver(id: "g-1", type: .group))
        #expect(upload.sender == "uid-7")
        #expect(upload.concurrency == 3)
        #expect(upload.message.send == .manual)
        #expect(upload.message.caption == "Trip")
        #expect(upload.files.map(\.fileId) == ["photo.jpg", "notes.txt"])
        #expect(upload.files[0].source == .url("https://files.example.com/a/photo.jpg?sig=x"))
        #expect(upload.files[1].source == .data(try Data(contentsOf: URL(fileURLWithPath: small))))
    }

    @Test func withAPathRootLocalFilesBecomePathsRelativeToIt() throws {
        let request = SubmitJob.Request(to: "user:u", pathRoot: "/srv/sources/", inputs: ["/srv/sources/inbox/42/notes.pdf"])
        let job = try SubmitJob(request, limits: Self.limits)
        #expect(try decoded(job).files.map(\.source) == [.path("inbox/42/notes.pdf")])
        let outside = SubmitJob.Request(to: "user:u", pathRoot: "/srv/sources", inputs: ["/srv/sourcesX/a.pdf"])
        #expect(throws: RecordInputError("'/srv/sourcesX/a.pdf' is not inside --path-root /srv/sources")) {
            try SubmitJob(outside, limits: Self.limits)
        }
    }

    @Test func repeatedNamesGetUniqueFileIds() throws {
        let request = SubmitJob.Request(to: "user:u", inputs: ["https://h/x/a.jpg", "https://h/y/a.jpg", "https://h/z/a.jpg", "https://h/"])
        let job = try SubmitJob(request, limits: Self.limits, newBatchId: { "generated" })
        #expect(job.files.map(\.fileId) == ["a.jpg", "a-2.jpg", "a-3.jpg", "file"])
        #expect(job.batchId == "generated")
        #expect(job.sendMode == "auto")
    }

    @Test func aLocalFileAboveTheInlineLimitIsRefusedSayingSo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let big = try directory.patternFile("big.bin", size: 1025)
        #expect(throws: RecordInputError("'\(big)' is 1025 bytes, more than limits.inlineMax (1024) allows inline; give the worker a path with --path-root, or a URL")) {
            try SubmitJob(.init(to: "user:u", inputs: [big]), limits: Self.limits)
        }
    }

    @Test(arguments: [
        (SubmitJob.Request(inputs: ["https://h/a"]), "submit needs --to user:ID or group:ID"),
        (SubmitJob.Request(to: "team:x", inputs: ["https://h/a"]), "--to must be user:ID or group:ID"),
        (SubmitJob.Request(to: "user:u", inputs: []), "submit needs at least one FILE or URL"),
        (SubmitJob.Request(to: "user:u", send: "later", inputs: ["https://h/a"]), "--send must be auto, manual or none"),
        (SubmitJob.Request(to: "user:u", concurrency: "0", inputs: ["https://h/a"]), "--concurrency must be a whole number from 1 to 1000"),
        (SubmitJob.Request(to: "user:u", inputs: Array(repeating: "https://h/a", count: 6)), "6 files, but a job holds at most 5 (limits.filesPerJob)"),
        (SubmitJob.Request(to: "user:u", inputs: ["/nonexistent/file"]), "cannot read '/nonexistent/file'"),
    ])
    func aBadRequestIsRefusedSayingWhy(request: SubmitJob.Request, message: String) {
        #expect(throws: RecordInputError(message)) { try SubmitJob(request, limits: Self.limits) }
    }
}
