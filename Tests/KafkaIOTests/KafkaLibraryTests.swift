import Testing
@testable import KafkaIO

@Suite struct KafkaLibraryTests {
    @Test func linksLibrdkafkaTwo() {
        #expect(KafkaLibrary.version.hasPrefix("2."))
    }
}
