import Testing
@testable import Worker

@Suite struct VersionTests {
    @Test func versionIsSemantic() {
        #expect(AttacheVersion.string.split(separator: ".").count == 3)
    }
}
