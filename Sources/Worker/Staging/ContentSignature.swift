/// A file format recognised from its first bytes (its magic number), and the mime type it stands for.
///
/// Only formats with an unambiguous signature are recognised; anything else is unknown, and unknown content never
/// contradicts what a job declared.
enum ContentSignature: String, Sendable, Hashable, CaseIterable {
    /// Still images.
    case jpeg, png, gif, webp, heic, heif, avif
    /// Audio/video containers (ISO media by brand, Matroska).
    case mp4, quicktime, m4a, threeGPP = "3gpp", webm, matroska
    /// Audio.
    case mp3, wav, ogg
    /// Documents and archives.
    case pdf, zip

    /// How many leading bytes `sniff` looks at; fewer are enough when the content is shorter.
    static let window = 512

    /// The mime type the format is staged with.
    var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .heif: "image/heif"
        case .avif: "image/avif"
        case .mp4: "video/mp4"
        case .quicktime: "video/quicktime"
        case .m4a: "audio/mp4"
        case .threeGPP: "video/3gpp"
        case .webm: "video/webm"
        case .matroska: "video/x-matroska"
        case .mp3: "audio/mpeg"
        case .wav: "audio/wav"
        case .ogg: "audio/ogg"
        case .pdf: "application/pdf"
        case .zip: "application/zip"
        }
    }

    /// The signature whose `mimeType` this is (as kept in the source cache's index).
    init?(mimeType: String) {
        guard let match = Self.allCases.first(where: { $0.mimeType == mimeType }) else { return nil }
        self = match
    }

    /// The format of content starting with `prefix` (up to `window` bytes), or nil when unknown.
    static func sniff(_ prefix: [UInt8]) -> ContentSignature? {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            prefix.count >= offset + magic.count && prefix[offset..<offset + magic.count].elementsEqual(magic)
        }
        let ascii = { (text: String) in Array(text.utf8) }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(ascii("GIF87a")) || starts(ascii("GIF89a")) { return .gif }
        if starts(ascii("RIFF")), starts(ascii("WEBP"), at: 8) { return .webp }
        if starts(ascii("RIFF")), starts(ascii("WAVE"), at: 8) { return .wav }
        if starts(ascii("ftyp"), at: 4) { return isoMedia(prefix) }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return contains(ascii("webm"), in: prefix) ? .webm : .matroska }
        if starts(ascii("OggS")) { return .ogg }
        if starts(ascii("%PDF-")) { return .pdf }
        if starts(ascii("PK")), starts([0x03, 0x04], at: 2) || starts([0x05, 0x06], at: 2) || starts([0x07, 0x08], at: 2) {
            return .zip
        }
        if starts(ascii("ID3")) || isMPEGAudioFrame(prefix) { return .mp3 }
        return nil
    }

    /// An ISO base media file (`ftyp` box): a specific brand (HEIC, QuickTime, M4A…) wins over a generic one
    /// (`isom`, `mif1`), and the major brand over the compatible ones.
    private static func isoMedia(_ prefix: [UInt8]) -> ContentSignature? {
        guard prefix.count >= 12 else { return nil }
        let boxSize = prefix[0..<4].reduce(0) { $0 << 8 | Int($1) }
        let end = min(prefix.count, max(16, boxSize))
        var brands = [String(decoding: prefix[8..<12], as: UTF8.self)]
        var offset = 16
        while offset + 4 <= end {
            brands.append(String(decoding: prefix[offset..<offset + 4], as: UTF8.self))
            offset += 4
        }
        for table in [specificBrands, genericBrands] {
            if let format = brands.lazy.compactMap({ table[$0] }).first { return format }
        }
        return nil
    }

    /// Brands that name one format.
    private static let specificBrands: [String: ContentSignature] = {
        var formats: [String: ContentSignature] = [:]
        for brand in ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs"] { formats[brand] = .heic }
        for brand in ["avif", "avis"] { formats[brand] = .avif }
        formats["qt  "] = .quicktime
        for brand in ["M4A ", "M4B ", "M4P "] { formats[brand] = .m4a }
        for brand in ["3gp4", "3gp5", "3gp6", "3gp7", "3gg6", "3g2a", "3g2b", "3g2c"] { formats[brand] = .threeGPP }
        return formats
    }()

    /// Brands shared by a family of formats: the fallback when no specific brand is listed.
    private static let genericBrands: [String: ContentSignature] = {
        var formats: [String: ContentSignature] = ["mif1": .heif, "msf1": .heif]
        for brand in ["isom", "iso2", "iso3", "iso4", "iso5", "iso6", "iso8", "iso9", "mp41", "mp42", "mp71", "avc1",
                      "dash", "M4V ", "MSNV", "f4v ", "mmp4"] {
            formats[brand] = .mp4
        }
        return formats
    }()

    /// An MPEG audio frame header: 11 sync bits, then no reserved version, layer, bit rate or sample rate.
    private static func isMPEGAudioFrame(_ prefix: [UInt8]) -> Bool {
        guard prefix.count >= 4, prefix[0] == 0xFF, prefix[1] & 0xE0 == 0xE0 else { return false }
        let version = (prefix[1] >> 3) & 0x03
        let layer = (prefix[1] >> 1) & 0x03
        let bitrate = prefix[2] >> 4
        let sampleRate = (prefix[2] >> 2) & 0x03
        return version != 0x01 && layer != 0x00 && bitrate != 0x0F && sampleRate != 0x03
    }

    private static func contains(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
