import Testing
import WireFormat

@Suite struct HTTPHeaderTests {
    @Test func aNameMatchesWithoutRegardToTheCaseOfItsLetters() {
        #expect(HTTPHeader("Content-Type", "x").isNamed("content-type"))
        #expect(HTTPHeader("content-type", "x").isNamed("CONTENT-TYPE"))
        #expect(!HTTPHeader("content-types", "x").isNamed("content-type"))
        #expect(!HTTPHeader("content_type", "x").isNamed("content-type"))
        // Only ASCII letters fold: `[` is `{` less 32, but no letter.
        #expect(!HTTPHeader("x[", "x").isNamed("x{"))
    }

    @Test func theLowerCasedNameIsTheNameItselfWhenItHasNoCapital() {
        #expect(HTTPHeader("X-Amz-Date", "x").lowercasedName == "x-amz-date")
        #expect(HTTPHeader("x-amz-date", "x").lowercasedName == "x-amz-date")
    }
}
