@testable import Staging
import Testing


/// Recognising formats from their first bytes, and when a declared mime type contradicts them.
@Suite struct ContentSignatureTests {
    static let samples: [(name: String, bytes: [UInt8], signature: ContentSignature?)] = [
        ("jpeg", SampleBytes.jpeg, .jpeg),
        ("png", SampleBytes.png, .png),
        ("gif", SampleBytes.gif, .gif),
        ("webp", Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8), .webp),
        ("wav", Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVEfmt ".utf8), .wav),
        ("heic", SampleBytes.isoMedia("heic", ["mif1", "heic"]), .heic),
        ("heif via mif1 with a heic brand", SampleBytes.isoMedia("mif1", ["mif1", "heic"]), .heic),
        ("plain heif", SampleBytes.isoMedia("mif1", ["mif1"]), .heif),
        ("avif", SampleBytes.isoMedia("avif", ["mif1", "avif"]), .avif),
        ("mp4", SampleBytes.isoMedia("isom", ["isom", "iso2", "mp41"]), .mp4),
        ("mov", SampleBytes.isoMedia("qt  ", ["qt  "]), .quicktime),
        ("m4a", SampleBytes.isoMedia("M4A ", ["M4A ", "mp42", "isom"]), .m4a),
        ("webm", [0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84] + Array("webm".utf8), .webm),
        ("mkv", [0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x88] + Array("matroska".utf8), .matroska),
        ("mp3 with ID3", SampleBytes.mp3, .mp3),
        ("mp3 frame", [0xFF, 0xFB, 0x90, 0x64] + SampleBytes.filler(100), .mp3),
        ("ogg", Array("OggS".utf8) + [0, 2] + SampleBytes.filler(100), .ogg),
        ("pdf", SampleBytes.pdf, .pdf),
        ("zip", SampleBytes.zip, .zip),
        ("text", SampleBytes.text, nil),
        ("ADTS AAC is not MP3", [0xFF, 0xF1, 0x50, 0x80] + SampleBytes.filler(100), nil),
        ("too short for anything", [0xFF, 0xD8], nil),
        ("empty", [], nil),
    ]

    @Test(arguments: samples.indices)
    func aFormatIsRecognisedFromItsFirstBytes(_ index: Int) {
        let sample = Self.samples[index]
        #expect(ContentSignature.sniff(sample.bytes) == sample.signature, "\(sample.name)")
    }

    static let verdicts: [(declared: String, shown: ContentSignature, compatible: Bool)] = [
        ("image/jpeg", .jpeg, true), ("image/png", .jpeg, true), ("IMAGE/JPEG; q=1", .jpeg, true),
        ("image/jpeg", .pdf, false), ("image/png", .zip, false), ("video/mp4", .png, false),
        ("application/pdf", .jpeg, false), ("audio/mpeg", .gif, false), ("text/plain", .pdf, false),
        ("application/octet-stream", .pdf, true), ("binary/octet-stream", .jpeg, true),
        ("audio/mp4", .mp4, true), ("video/mp4", .m4a, true), ("audio/webm", .webm, true), ("image/heic", .mp4, false),
        ("application/pdf", .pdf, true), ("application/zip", .pdf, false),
        ("application/vnd.openxmlformats-officedocument.wordprocessingml.document", .zip, true),
        ("application/pdf", .zip, false), ("text/html", .zip, false), ("audio/wav", .wav, true), ("video/mp4", .mp3, false),
    ]

    @Test(arguments: verdicts.indices)
    func aDeclarationContradictsOnlyContentOfAnotherFamily(_ index: Int) {
        let verdict = Self.verdicts[index]
        #expect(verdict.shown.isCompatible(withDeclared: verdict.declared) == verdict.compatible,
                "\(verdict.declared) for \(verdict.shown)")
    }

    @Test func theStagedTypeIsTheExactFormatOrTheDeclarationForContainers() {
        #expect(ContentSignature.stagedType(declared: nil, shown: .pdf) == "application/pdf")
        #expect(ContentSignature.stagedType(declared: "application/octet-stream", shown: .png) == "image/png")
        #expect(ContentSignature.stagedType(declared: "image/jpg", shown: .jpeg) == "image/jpeg")
        #expect(ContentSignature.stagedType(declared: "audio/mp4", shown: .mp4) == "audio/mp4")
        #expect(ContentSignature.stagedType(declared: "application/epub+zip", shown: .zip) == "application/epub+zip")
        #expect(ContentSignature.stagedType(declared: "text/plain", shown: nil) == "text/plain")
        #expect(ContentSignature.stagedType(declared: nil, shown: nil) == nil)
    }
}
