@testable import Staging
import Testing
import WireFormat


/// The cache index file keeps the shape it has always had on disk, so an index written before still loads.
@Suite struct SourceCacheIndexTests {
    private static let entries = [
        SourceCacheEntry(key: "https://origin.test/a.jpg", file: "a.cache", size: 12, sha256: "ab", sniffedType: "image/jpeg",
                         validator: SourceValidator(etag: "\"v1\"", lastModified: nil), lastUsed: 3),
        SourceCacheEntry(key: "https://origin.test/b", file: "b.cache", size: 1, sha256: "cd", sniffedType: nil,
                         validator: nil, lastUsed: 4),
    ]

    @Test func anIndexInTheEarlierEncodersShapeIsRead() throws {
        let json = #"""
            {"entries":[{"file":"a.cache","key":"https:\/\/origin.test\/a.jpg","lastUsed":3,"sha256":"ab","size":12,\#
            "sniffedType":"image\/jpeg","validator":{"etag":"\"v1\""}},\#
            {"file":"b.cache","key":"https:\/\/origin.test\/b","lastUsed":4,"sha256":"cd","size":1}],"version":1}
            """#
        let index = try #require(SourceCacheIndex(JSONParser.parse(Array(json.utf8))))
        #expect(index.version == 1)
        #expect(index.entries == Self.entries)
    }

    @Test func aWrittenIndexReadsBackTheSame() throws {
        var writer = JSONWriter()
        writer.value(SourceCacheIndex(entries: Self.entries).json)
        let index = try #require(SourceCacheIndex(JSONParser.parse(writer.bytes)))
        #expect(index.entries == Self.entries)
    }

    @Test(arguments: [
        #"{"version":1,"entries":[{"key":"k","file":"f","size":"12","sha256":"s","lastUsed":1}]}"#,
        #"{"version":1,"entries":[{"key":"k","file":"f","size":12,"sha256":"s"}]}"#,
        #"{"version":1,"entries":[{"key":"k","file":"f","size":12,"sha256":"s","lastUsed":1,"validator":[]}]}"#,
        #"{"entries":[]}"#,
    ])
    func anEntryMissingAFieldOrOfTheWrongTypeDiscardsTheIndex(json: String) throws {
        #expect(SourceCacheIndex(try JSONParser.parse(Array(json.utf8))) == nil)
    }
}
