import Glibc

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
        prefix.withUnsafeBytes { sniff($0) }
    }

    /// The format of content starting with `prefix`, read in place: every staged file is sniffed, so nothing here
    /// allocates (magic numbers written as array literals cost sixteen allocations a file).
    static func sniff(_ prefix: UnsafeRawBufferPointer) -> ContentSignature? {
        func starts(_ magic: StaticString, at offset: Int = 0) -> Bool {
            let count = magic.utf8CodeUnitCount
            guard prefix.count >= offset + count else { return false }
            return memcmp(prefix.baseAddress! + offset, magic.utf8Start, count) == 0
        }
        func byte(_ index: Int) -> UInt8? { index < prefix.count ? prefix[index] : nil }
        if byte(0) == 0xFF, byte(1) == 0xD8, byte(2) == 0xFF { return .jpeg }
        if byte(0) == 0x89, starts("PNG\r\n\u{1A}\n", at: 1) { return .png }
        if starts("GIF87a") || starts("GIF89a") { return .gif }
        if starts("RIFF"), starts("WEBP", at: 8) { return .webp }
        if starts("RIFF"), starts("WAVE", at: 8) { return .wav }
        if starts("ftyp", at: 4) { return isoMedia(prefix) }
        if starts("\u{1A}E"), byte(2) == 0xDF, byte(3) == 0xA3 { return contains("webm", in: prefix) ? .webm : .matroska }
        if starts("OggS") { return .ogg }
        if starts("%PDF-") { return .pdf }
        if starts("PK"), starts("\u{03}\u{04}", at: 2) || starts("\u{05}\u{06}", at: 2) || starts("\u{07}\u{08}", at: 2) {
            return .zip
        }
        if starts("ID3") || isMPEGAudioFrame(prefix) { return .mp3 }
        return nil
    }

    /// An ISO base media file (`ftyp` box): a specific brand (HEIC, QuickTime, M4A…) wins over a generic one
    /// (`isom`, `mif1`), and the major brand over the compatible ones.
    private static func isoMedia(_ prefix: UnsafeRawBufferPointer) -> ContentSignature? {
        guard prefix.count >= 12 else { return nil }
        let boxSize = prefix[0..<4].reduce(0) { $0 << 8 | Int($1) }
        let end = min(prefix.count, max(16, boxSize))
        func brand(at offset: Int) -> String { String(decoding: prefix[offset..<offset + 4], as: UTF8.self) }
        // The major brand, then the compatible ones after the minor version.
        let offsets = [8] + stride(from: 16, through: end - 4, by: 4)
        for table in [specificBrands, genericBrands] {
            if let format = offsets.lazy.compactMap({ table[brand(at: $0)] }).first { return format }
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
    private static func isMPEGAudioFrame(_ prefix: UnsafeRawBufferPointer) -> Bool {
        guard prefix.count >= 4, prefix[0] == 0xFF, prefix[1] & 0xE0 == 0xE0 else { return false }
        let version = (prefix[1] >> 3) & 0x03
        let layer = (prefix[1] >> 1) & 0x03
        let bitrate = prefix[2] >> 4
        let sampleRate = (prefix[2] >> 2) & 0x03
        return version != 0x01 && layer != 0x00 && bitrate != 0x0F && sampleRate != 0x03
    }

    private static func contains(_ needle: StaticString, in haystack: UnsafeRawBufferPointer) -> Bool {
        let count = needle.utf8CodeUnitCount
        guard haystack.count >= count else { return false }
        return (0...(haystack.count - count)).contains { memcmp(haystack.baseAddress! + $0, needle.utf8Start, count) == 0 }
    }
}
