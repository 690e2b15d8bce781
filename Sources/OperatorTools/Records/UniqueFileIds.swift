import UploadEngine
import WireFormat

/// File ids made from names, unique within one job: a repeated name gets `-2`, `-3`… before its extension.
struct UniqueFileIds {
    private var taken: Set<String> = []

    mutating func take(_ name: String) -> String {
        let base = String(String.UnicodeScalarView(name.unicodeScalars.filter { HeaderSafety.isSafe(String($0)) }.prefix(120)))
        var candidate = base.isEmpty ? "file" : base
        var number = 2
        while taken.contains(candidate) {
            let dot = base.lastIndex(of: ".").flatMap { $0 == base.startIndex ? nil : $0 }
            candidate = dot.map { "\(base[..<$0])-\(number)\(base[$0...])" } ?? "\(base)-\(number)"
            number += 1
        }
        taken.insert(candidate)
        return candidate
    }
}
