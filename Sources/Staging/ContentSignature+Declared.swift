import Foundation

/// Whether a job's declared mime type agrees with what the bytes turned out to be.
///
/// "Contradicts" is deliberately coarse, because apps mislabel within a family all the time (a PNG sent as
/// `image/jpeg` is still an image): a declaration contradicts the bytes only when it puts them in another family —
/// an image declared for PDF bytes, a PDF declared for a ZIP, audio declared for a JPEG. Generic declarations
/// (`application/octet-stream` and the like) and unknown bytes never contradict.
extension ContentSignature {
    /// Declarations that say nothing about the content.
    static let genericTypes: Set<String> = [
        "application/octet-stream", "binary/octet-stream", "application/binary", "application/unknown",
        "application/x-unknown", "application/force-download", "application/download",
    ]

    /// Whether the declared `mimeType` (parameters allowed) can describe bytes of this format.
    func isCompatible(withDeclared mimeType: String) -> Bool {
        let essence = Self.essence(of: mimeType)
        if Self.genericTypes.contains(essence) { return true }
        let topLevel = essence.split(separator: "/", maxSplits: 1).first.map(String.init) ?? essence
        switch self {
        case .jpeg, .png, .gif, .webp, .heic, .heif, .avif:
            return topLevel == "image"
        case .mp4, .quicktime, .m4a, .threeGPP, .webm, .matroska:
            // One container holds audio, video or both.
            return topLevel == "video" || topLevel == "audio" || essence == "application/mp4"
        case .ogg:
            return topLevel == "video" || topLevel == "audio" || essence == "application/ogg"
        case .mp3, .wav:
            return topLevel == "audio"
        case .pdf:
            return ["application/pdf", "application/x-pdf", "application/acrobat"].contains(essence)
        case .zip:
            // Office documents, EPUB, JAR, APK, USDZ… are all ZIP files underneath.
            return (topLevel == "application" || topLevel == "model") && essence != "application/pdf"
        }
    }

    /// `type/subtype` in lower case, without parameters.
    static func essence(of mimeType: String) -> String {
        String(mimeType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0])
            .trimmingCharacters(in: .whitespaces).lowercased()
    }
}

extension ContentSignature {
    /// Whether the format names its content exactly; containers (MP4, Matroska, Ogg: audio or video; ZIP: any
    /// of many document types) leave the precise type to the declaration.
    var isExact: Bool {
        switch self {
        case .mp4, .quicktime, .m4a, .threeGPP, .webm, .matroska, .ogg, .zip: false
        default: true
        }
    }

    /// The mime type a file is staged with, given what it declared and what its bytes show (already checked for
    /// contradiction): an exact format's own type, else the declaration unless it is absent or generic, else what
    /// the bytes show.
    static func stagedType(declared: String?, shown: ContentSignature?) -> String? {
        guard let shown else { return declared }
        guard let declared, !genericTypes.contains(essence(of: declared)) else { return shown.mimeType }
        return shown.isExact ? shown.mimeType : declared
    }
}
