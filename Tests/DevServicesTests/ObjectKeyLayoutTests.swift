import Testing
@testable import DevServices

@Suite struct ObjectKeyLayoutTests {
    @Test func safeIdsAndNamesAreKeptAsTheyAre() {
        #expect(ObjectKeyLayout.key(batchId: "trip-42", fileId: "f_1.a", name: "photo-1.JPG") == "trip-42/f_1.a/photo-1.JPG")
    }

    @Test func unsafeNameCharactersBecomeUnderscores() {
        #expect(ObjectKeyLayout.key(batchId: "b", fileId: "f", name: "été 1.jpg") == "b/f/_t__1.jpg")
        #expect(ObjectKeyLayout.key(batchId: "b", fileId: "f", name: "../../etc/passwd") == "b/f/___.._etc_passwd")
        #expect(ObjectKeyLayout.key(batchId: "b", fileId: "f", name: ".env") == "b/f/_env")
        #expect(ObjectKeyLayout.key(batchId: "b", fileId: "f", name: "") == "b/f/file")
    }

    @Test func unsafeIdsGetAHashSoDistinctIdsNeverShareAKey() throws {
        let slash = ObjectKeyLayout.key(batchId: "b", fileId: "f/1", name: "n")
        let underscore = ObjectKeyLayout.key(batchId: "b", fileId: "f_1", name: "n")
        let dots = ObjectKeyLayout.key(batchId: "..", fileId: "f", name: "n")

        #expect(slash.hasPrefix("b/f_1-"))
        #expect(slash != underscore)
        #expect(!dots.hasPrefix(".."))
        for key in [slash, underscore, dots] { _ = try ObjectKey(key) }
    }

    @Test func longNamesAreCutKeepingTheExtension() throws {
        let key = ObjectKeyLayout.key(batchId: "b", fileId: "f", name: String(repeating: "a", count: 300) + ".jpeg")
        let name = try #require(key.split(separator: "/").last)
        #expect(name.utf8.count == 200)
        #expect(name.hasSuffix(".jpeg"))
    }
}
