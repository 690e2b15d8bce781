import Testing
@testable import DevServices

@Suite struct ObjectKeyTests {
    @Test(arguments: ["a", "batch/f1/photo.jpg", "a b/é/..x", "x/.hidden"])
    func validKeysAreAccepted(key: String) throws {
        #expect(try ObjectKey(key).rawValue == key)
    }

    @Test(arguments: ["", "/a", "a/", "a//b", "a/../b", "..", "a/./b", "a\u{0}b", "a\nb", String(repeating: "x", count: 256)])
    func invalidKeysAreRefused(key: String) {
        #expect(throws: DevServicesError.self) { try ObjectKey(key) }
    }

    @Test func urlPathEncodesEverythingButUnreservedCharacters() throws {
        #expect(try ObjectKey("trip 42/f1/é+1.jpg").urlPath == "/trip%2042/f1/%C3%A9%2B1.jpg")
    }

    @Test func fileIdIsTheSecondSegmentOfAThreeSegmentKey() throws {
        #expect(try ObjectKey("b/f1/n.txt").fileId == "f1")
        #expect(try ObjectKey("b/n.txt").fileId == nil)
    }
}
