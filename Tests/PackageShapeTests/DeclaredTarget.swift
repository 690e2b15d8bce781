/// One target as `Package.swift` declares it, read from the manifest's text rather than from SwiftPM.
///
/// A field the manifest computes instead of spelling out (`name: target.name`, `dependencies: a + b`) is `nil`:
/// the reader never guesses, so a rule about a target it cannot read fails instead of passing by omission.
struct DeclaredTarget: Equatable, Sendable {
    /// The declaration's factory, by its name in PackageDescription.
    enum Kind: String, CaseIterable, Sendable {
        case regular = "target"
        case executable = "executableTarget"
        case test = "testTarget"
        case systemLibrary
        case binary = "binaryTarget"
        case plugin
        case macro
    }

    /// Which factory declared it.
    var kind: Kind
    /// The `name:` literal; `nil` when computed.
    var name: String?
    /// The `path:` literal, or its literal prefix when interpolated (`"Fuzz/Targets/\(name)"` gives `Fuzz/Targets/`).
    var path: String?
    /// The names of the targets and products listed in `dependencies:`, in order; `[]` when absent, `nil` when computed.
    var dependencies: [String]?

    /// Whether it lives beside the tests rather than in `Sources/`: a test-support target or a fuzz harness.
    var isBesideTheTests: Bool {
        guard let path else { return false }
        return path.hasPrefix("Tests/") || path.hasPrefix("Fuzz/")
    }

    /// Whether it is one of the package's modules: declared for `Sources/`, not a test target and not beside the tests.
    var isModule: Bool { kind != .test && !isBesideTheTests }
}
