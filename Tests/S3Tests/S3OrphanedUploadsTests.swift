import Foundation
@testable import S3
import Testing

/// Which incomplete uploads are orphans, and the key layout that names their batch.
@Suite struct S3OrphanedUploadsTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func upload(_ batchId: String, _ uploadId: String, hoursAgo: Double, prefix: String = "media/uploads") -> S3IncompleteUpload {
        S3IncompleteUpload(key: S3ObjectKey.make(prefix: prefix, batchId: batchId, fileId: "f/1", name: "clip.mp4"),
                           uploadId: uploadId, initiated: now.addingTimeInterval(-hoursAgo * 3600))
    }

    @Test(arguments: ["trip-42", "batch 50%", "a/b", "%2F", ".", "..", "ü"])
    func theBatchIdOfAKeyIsTheOneItWasMadeFrom(batchId: String) {
        let key = S3ObjectKey.make(prefix: "/media//uploads/", batchId: batchId, fileId: "f/1", name: "clip.mp4")
        #expect(S3ObjectKey.batchId(ofKey: key, prefix: "media/uploads") == batchId)
        #expect(S3ObjectKey.batchId(ofKey: S3ObjectKey.make(prefix: "", batchId: batchId, fileId: "f", name: "n"), prefix: "") == batchId)
    }

    @Test func keysOutsideTheLayoutNameNoBatch() {
        #expect(S3ObjectKey.batchId(ofKey: "other/trip-42/f1/clip.mp4", prefix: "media") == nil)
        #expect(S3ObjectKey.batchId(ofKey: "media/trip-42/clip.mp4", prefix: "media") == nil, "no file segment")
        #expect(S3ObjectKey.batchId(ofKey: "media//f1/clip.mp4", prefix: "media") == nil)
        #expect(S3ObjectKey.batchId(ofKey: "mediax/trip-42/f1/clip.mp4", prefix: "media") == nil)
    }

    @Test func anOldUploadNoBatchWillResumeIsAnOrphanAndEverythingElseIsKept() {
        let uploads = [
            Self.upload("gone", "u1", hoursAgo: 30),
            Self.upload("live", "u2", hoursAgo: 30),
            Self.upload("live", "u3", hoursAgo: 30),
            Self.upload("gone", "u4", hoursAgo: 2),
            Self.upload("elsewhere", "u5", hoursAgo: 30),
            S3IncompleteUpload(key: "media/uploads/loose.bin", uploadId: "u6", initiated: Self.now.addingTimeInterval(-1e6)),
            S3IncompleteUpload(key: Self.upload("gone", "u7", hoursAgo: 0).key, uploadId: "u7", initiated: nil),
        ]
        let judge = S3OrphanedUploads(prefix: "media/uploads", minimumAge: .seconds(24 * 3600))
        let verdicts = judge.judge(uploads, now: Self.now) { batchId in
            switch batchId {
            case "live": .references(["u2"])
            case "gone": .absent
            default: .unknown
            }
        }
        #expect(verdicts.filter(\.isOrphan).map(\.upload.uploadId) == ["u1", "u3"])
        #expect(verdicts.map(\.reason) == ["its batch is gone", "resumed by its batch", "not referenced by its batch", "too recent",
                                           "batch not known here", "not an Attache key", "too recent"])
        #expect(verdicts.map(\.batchId) == ["gone", "live", "live", "gone", "elsewhere", nil, "gone"])
    }

    @Test func aTruncatedListingNamesWhereTheNextPageStarts() throws {
        let page = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
          <Bucket>media</Bucket><Prefix>uploads/</Prefix>
          <NextKeyMarker>uploads/b/f/2.mp4</NextKeyMarker><NextUploadIdMarker>id-2</NextUploadIdMarker>
          <MaxUploads>2</MaxUploads><IsTruncated>true</IsTruncated>
          <Upload><Key>uploads/b/f/1.mp4</Key><UploadId>id-1</UploadId><Initiated>2026-12-01T10:00:00.000Z</Initiated></Upload>
          <Upload><Key>uploads/b/f/2.mp4</Key><UploadId>id-2</UploadId><Initiated>2026-12-01T11:00:00Z</Initiated></Upload>
        </ListMultipartUploadsResult>
        """
        let result = try S3ListMultipartUploadsResult(status: 200, body: Data(page.utf8))
        #expect(result.uploads.map(\.uploadId) == ["id-1", "id-2"])
        #expect(result.uploads.map(\.initiated) == [Date(timeIntervalSince1970: 1_796_119_200), Date(timeIntervalSince1970: 1_796_122_800)])
        #expect(result.nextKeyMarker == "uploads/b/f/2.mp4" && result.nextUploadIdMarker == "id-2")

        let last = try S3ListMultipartUploadsResult(status: 200, body: Data(page.replacingOccurrences(of: ">true<", with: ">false<").utf8))
        #expect(last.nextKeyMarker == nil)
        let broken = page.replacingOccurrences(of: "<NextKeyMarker>uploads/b/f/2.mp4</NextKeyMarker>", with: "")
        #expect(throws: S3Error.self) { try S3ListMultipartUploadsResult(status: 200, body: Data(broken.utf8)) }
    }
}
