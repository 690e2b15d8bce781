@testable import S3
import Testing

@Suite struct S3MultipartPlanTests {
    static let mebibyte: Int64 = 1024 * 1024

    @Test func filesUpToTheThresholdGoInOnePut() throws {
        #expect(try S3MultipartPlan.plan(size: 64 * Self.mebibyte, threshold: 64 * Self.mebibyte) == nil)
        #expect(try S3MultipartPlan.plan(size: 64 * Self.mebibyte + 1, threshold: 64 * Self.mebibyte) != nil)
    }

    @Test func objectsAboveFiveGiBAreAlwaysMultipart() throws {
        let size = S3MultipartPlan.maximumSinglePutSize + 1
        #expect(try S3MultipartPlan.plan(size: size, threshold: .max) != nil)
    }

    @Test func partsCoverTheObjectExactlyWithASmallerLastPart() throws {
        let plan = try S3MultipartPlan(objectSize: 20 * Self.mebibyte + 3, preferredPartSize: 8 * Self.mebibyte)
        #expect(plan.partSize == 8 * Self.mebibyte)
        #expect(plan.partCount == 3)
        #expect(plan.byteRange(ofPart: 1) == 0..<(8 * Self.mebibyte))
        #expect(plan.byteRange(ofPart: 3) == (16 * Self.mebibyte)..<(20 * Self.mebibyte + 3))
        let total = plan.partNumbers.map { plan.byteRange(ofPart: $0).count }.reduce(0, +)
        #expect(Int64(total) == plan.objectSize)
    }

    @Test func partsAreNeverSmallerThanFiveMiB() throws {
        let plan = try S3MultipartPlan(objectSize: 12 * Self.mebibyte, preferredPartSize: 1)
        #expect(plan.partSize == S3MultipartPlan.minimumPartSize)
        #expect(plan.partCount == 3)
    }

    @Test func partsGrowSoTenThousandHoldTheObject() throws {
        let size: Int64 = 200 * 1024 * Self.mebibyte  // 200 GiB
        let plan = try S3MultipartPlan(objectSize: size)
        #expect(plan.partCount <= S3MultipartPlan.maximumPartCount)
        #expect(plan.partSize % Self.mebibyte == 0)
        #expect(plan.partSize * Int64(plan.partCount) >= size)
        #expect(plan.partSize * Int64(plan.partCount - 1) < size)
        let largest = try S3MultipartPlan(objectSize: S3MultipartPlan.maximumObjectSize)
        #expect(largest.partCount <= S3MultipartPlan.maximumPartCount)
        #expect(largest.partSize <= S3MultipartPlan.maximumPartSize)
    }

    @Test func preferredPartSizesAboveFiveGiBAreCapped() throws {
        let plan = try S3MultipartPlan(objectSize: 11 * 1024 * Self.mebibyte, preferredPartSize: 8 * 1024 * Self.mebibyte)
        #expect(plan.partSize == S3MultipartPlan.maximumPartSize)
        #expect(plan.partCount == 3)
    }

    @Test func objectsAboveFiveTiBAreRefused() {
        #expect {
            try S3MultipartPlan(objectSize: S3MultipartPlan.maximumObjectSize + 1)
        } throws: { ($0 as? S3Error)?.code == .objectTooLarge }
    }
}
