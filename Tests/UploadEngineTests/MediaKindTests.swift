import Testing
@testable import UploadEngine

@Suite struct MediaKindTests {
    @Test(arguments: [
        ("image/jpeg", MediaKind.image), ("IMAGE/PNG", .image), ("video/mp4", .video), ("audio/mpeg", .audio),
        ("application/pdf", .file), ("text/plain", .file), ("", .file), ("imagery/x", .file),
        ("Video/MP4", .video), ("audio", .audio), ("imag/x", .file), ("image+/x", .file), ("ima\u{0}e/x", .file),
    ])
    func mediaKindComesFromTheTopLevelType(mime: String, kind: MediaKind) {
        #expect(MediaKind(mimeType: mime) == kind)
    }

    @Test func sendOrderIsImageVideoAudioFile() {
        #expect([MediaKind.file, .audio, .image, .video].sorted() == [.image, .video, .audio, .file])
    }

    @Test(arguments: [("Photo.JPG", "jpg"), ("README", ""), (".env", ""), ("a.tar.gz", "gz"), ("x.", ""),
                      ("dir.d/file", "")])
    func extensionIsLowerCasedWithoutTheDot(name: String, ext: String) {
        #expect(UploadEngine.Attachment.fileExtension(of: name) == ext)
    }
}
