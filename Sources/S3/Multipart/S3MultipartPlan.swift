/// How an object is cut into parts for a multipart upload, within S3's limits: parts of at least 5 MiB (except the
/// last), at most 5 GiB, at most 10,000 of them, objects of at most 5 TiB.
public struct S3MultipartPlan: Sendable, Hashable {
    /// The smallest part S3 accepts, except for the last part: 5 MiB.
    public static let minimumPartSize: Int64 = 5 * 1024 * 1024
    /// The largest part S3 accepts: 5 GiB.
    public static let maximumPartSize: Int64 = 5 * 1024 * 1024 * 1024
    /// The most parts one upload may have.
    public static let maximumPartCount = 10_000
    /// The largest object S3 stores: 5 TiB.
    public static let maximumObjectSize: Int64 = 5 * 1024 * 1024 * 1024 * 1024
    /// The largest object a single `PUT` may carry.
    public static let maximumSinglePutSize: Int64 = 5 * 1024 * 1024 * 1024
    /// The part size used when none is asked for.
    public static let defaultPartSize: Int64 = 8 * 1024 * 1024

    /// The size of the whole object.
    public let objectSize: Int64
    /// The size of every part but the last, a whole number of MiB.
    public let partSize: Int64
    /// How many parts the object is cut into (at least one).
    public let partCount: Int

    /// Plans `objectSize` bytes in parts of `preferredPartSize`, grown (to whole MiB) when 10,000 parts of that
    /// size would not hold the object, and kept within 5 MiB … 5 GiB.
    /// - Throws: `S3Error` `.objectTooLarge` above 5 TiB.
    public init(objectSize: Int64, preferredPartSize: Int64 = S3MultipartPlan.defaultPartSize) throws {
        guard objectSize <= Self.maximumObjectSize else {
            throw S3Error(
                .objectTooLarge, "an object of \(objectSize) bytes exceeds S3's limit of \(Self.maximumObjectSize)")
        }
        let mebibyte: Int64 = 1024 * 1024
        let needed = (objectSize + Int64(Self.maximumPartCount) - 1) / Int64(Self.maximumPartCount)
        var size = max(preferredPartSize, Self.minimumPartSize, needed)
        size = (size + mebibyte - 1) / mebibyte * mebibyte
        size = min(size, Self.maximumPartSize)
        self.objectSize = max(objectSize, 0)
        self.partSize = size
        self.partCount = max(1, Int((self.objectSize + size - 1) / size))
    }

    /// The plan for an object of `size`, or nil when it goes up in one `PUT`: multipart is used above `threshold`,
    /// and always above 5 GiB, the single-`PUT` limit.
    public static func plan(size: Int64, threshold: Int64, preferredPartSize: Int64 = defaultPartSize) throws
        -> S3MultipartPlan?
    {
        guard size > threshold || size > maximumSinglePutSize else { return nil }
        return try S3MultipartPlan(objectSize: size, preferredPartSize: preferredPartSize)
    }

    /// The part numbers, 1-based as S3 counts them.
    public var partNumbers: ClosedRange<Int> { 1...partCount }

    /// The bytes of part `partNumber` (1-based) within the object.
    public func byteRange(ofPart partNumber: Int) -> Range<Int64> {
        precondition(partNumbers.contains(partNumber), "part \(partNumber) is outside 1...\(partCount)")
        let start = Int64(partNumber - 1) * partSize
        return start..<min(start + partSize, objectSize)
    }
}
