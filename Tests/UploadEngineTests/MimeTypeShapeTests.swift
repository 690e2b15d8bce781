import Foundation
import Testing
import UploadEngine

/// `type/subtype` with token characters, parameters after `;` allowed, surrounding spaces trimmed.
@Suite struct MimeTypeShapeTests {
    @Test(arguments: [
        "image/png", "IMAGE/PNG", " image/png ", "\timage/png\t", "image/png; charset=utf-8", "text/plain;", "image/svg+xml",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "a/b", "x-custom/x.y_z!#$&^",
        "\u{00A0}image/png", "image/png;ä", String(repeating: "a", count: 127) + "/" + String(repeating: "b", count: 127),
    ])
    func wellFormedTypes(_ mime: String) {
        #expect(MimeTypes.isWellFormed(mime))
        #expect(MimeTypes.isWellFormed(mime) == Self.reference(mime))
    }

    @Test(arguments: [
        "", "image", "image/", "/png", "/", "image/png/x", "ima ge/png", "image /png", "imäge/png", "image/pn\u{00E9}",
        "image/p\"ng", "image/(png)", "image/png\r\n", ";image/png", "image\u{00A0}/png",
        String(repeating: "a", count: 128) + "/b", "a/" + String(repeating: "b", count: 128),
    ])
    func malformedTypes(_ mime: String) {
        #expect(!MimeTypes.isWellFormed(mime))
        #expect(MimeTypes.isWellFormed(mime) == Self.reference(mime))
    }

    /// The definition, written plainly: what the byte-level check must agree with.
    private static func reference(_ mimeType: String) -> Bool {
        let essence = mimeType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
            .trimmingCharacters(in: .whitespaces)
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        let token = Set("!#$&-^_.+0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        return parts.allSatisfy { !$0.isEmpty && $0.count <= 127 && $0.allSatisfy(token.contains) }
    }
}
