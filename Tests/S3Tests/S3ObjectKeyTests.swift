@testable import S3
import Testing

@Suite struct S3ObjectKeyTests {
    @Test func keyIsPrefixBatchFileAndSafeName() {
        #expect(
            S3ObjectKey.make(prefix: "uploads", batchId: "trip-42", fileId: "f1", name: "photo 1.jpg")
                == "uploads/trip-42/f1/photo_1.jpg")
        #expect(S3ObjectKey.make(prefix: "", batchId: "b", fileId: "f", name: "a.txt") == "b/f/a.txt")
        #expect(S3ObjectKey.make(prefix: "/tenant/uploads/", batchId: "b", fileId: "f", name: "a") == "tenant/uploads/b/f/a")
    }

    @Test(arguments: [
        ("photo-1.JPG", "photo-1.JPG"),
        ("my holiday (1).jpeg", "my_holiday_1_.jpeg"),
        ("фото.png", "_.png"),
        ("a/../../etc/passwd", "a_.._.._etc_passwd"),
        ("..", "file"),
        (".", "file"),
        ("", "file"),
        ("???", "_"),
        ("...", "file"),
        (".env", ".env"),
        ("naïve résumé.pdf", "na_ve_r_sum_.pdf"),
    ])
    func safeNameKeepsOnlyPortableCharacters(name: String, expected: String) {
        #expect(S3ObjectKey.safeName(name) == expected)
    }

    @Test func longNamesAreCutKeepingTheExtension() {
        let name = String(repeating: "a", count: 300) + ".tar.gz"
        let safe = S3ObjectKey.safeName(name)
        #expect(safe.count == S3ObjectKey.maximumSafeNameLength)
        #expect(safe.hasSuffix("a.gz"))
        let noExtension = S3ObjectKey.safeName(String(repeating: "b", count: 500))
        #expect(noExtension == String(repeating: "b", count: S3ObjectKey.maximumSafeNameLength))
    }

    @Test func idsThatCouldSplitOrCollapseTheKeyAreEscaped() {
        let slashInFile = S3ObjectKey.make(prefix: "p", batchId: "x", fileId: "a/b", name: "n")
        let slashInBatch = S3ObjectKey.make(prefix: "p", batchId: "x/a", fileId: "b", name: "n")
        #expect(slashInFile == "p/x/a%2Fb/n")
        #expect(slashInBatch == "p/x%2Fa/b/n")
        #expect(slashInFile != slashInBatch)
        #expect(S3ObjectKey.make(prefix: "p", batchId: "..", fileId: ".", name: "n") == "p/%2E%2E/%2E/n")
        #expect(S3ObjectKey.segment("50%") == "50%25")
        #expect(S3ObjectKey.segment("%2F") != S3ObjectKey.segment("/"))
        // Characters decide, as they did in every earlier version: a slash carrying a combining accent is one
        // character that is not a slash, and keys must not change under a replayed job.
        #expect(S3ObjectKey.segment("a/\u{301}b") == "a/\u{301}b")
        #expect(S3ObjectKey.segment("a/b%\u{301}") == "a%2Fb%\u{301}")
        #expect(S3ObjectKey.segment("plain-id_1") == "plain-id_1")
    }

    @Test func keysAreDeterministic() {
        let first = S3ObjectKey.make(prefix: "u", batchId: "b", fileId: "f", name: "Ünïcode name.txt")
        let second = S3ObjectKey.make(prefix: "u", batchId: "b", fileId: "f", name: "Ünïcode name.txt")
        #expect(first == second)
    }
}
