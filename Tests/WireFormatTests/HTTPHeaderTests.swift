import Testing
import WireFormat

@Suite struct HTTPHeaderTests {
    @Test func fieldNamesMatchWithoutRegardToTheCaseOfTheirLetters() {
        #expect("Content-Type".equalsIgnoringASCIICase("content-type"))
        #expect("content-type".equalsIgnoringASCIICase("CONTENT-TYPE"))
        #expect(!"content-types".equalsIgnoringASCIICase("content-type"))
        #expect(!"content_type".equalsIgnoringASCIICase("content-type"))
        // Only ASCII letters fold: `[` is `{` less 32, but no letter.
        #expect(!"x[".equalsIgnoringASCIICase("x{"))
    }

    @Test func theLowerCasedNameIsTheNameItselfWhenItHasNoCapital() {
        #expect(HTTPHeader("X-Amz-Date", "x").lowercasedName == "x-amz-date")
        #expect(HTTPHeader("x-amz-date", "x").lowercasedName == "x-amz-date")
    }
}
