import Foundation

/// The targets a `Package.swift` declares and what each depends on, read from the manifest's text.
///
/// The tests cannot ask SwiftPM (`swift package dump-package` would wait on the build lock `swift test` holds), so
/// this reads the few shapes the manifest uses: `.target(name: "X", dependencies: ["Y", .target(name: "Z")],
/// path: "…")` and its siblings, wherever they appear — in `targets: [...]`, in `package.targets += [...]`, in an
/// `append(...)`. Comments and string contents never count as code.
struct ManifestTargets: Sendable {
    /// Every declaration found, in manifest order.
    let declarations: [DeclaredTarget]

    /// Reads `text`, the contents of a `Package.swift`.
    init(parsing text: String) {
        let tokens = ManifestToken.tokens(of: text)
        var declarations: [DeclaredTarget] = []
        var index = 0
        while index < tokens.count {
            if let (declaration, end) = Self.declaration(in: tokens, at: index) {
                declarations.append(declaration)
                index = end
            } else {
                index += 1
            }
        }
        self.declarations = declarations
    }

    /// Reads the `Package.swift` of the package holding `file` (pass `#filePath`): the nearest one above it.
    static func enclosing(_ file: String) throws -> (root: URL, targets: ManifestTargets) {
        var directory = URL(fileURLWithPath: file).deletingLastPathComponent()
        while directory.path != "/" {
            let manifest = directory.appendingPathComponent("Package.swift")
            if FileManager.default.fileExists(atPath: manifest.path) {
                return (directory, ManifestTargets(parsing: try String(contentsOf: manifest, encoding: .utf8)))
            }
            directory.deleteLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "Package.swift above \(file)"])
    }

    /// The declarations with a readable name, by name.
    var byName: [String: DeclaredTarget] {
        Dictionary(declarations.compactMap { d in d.name.map { ($0, d) } }, uniquingKeysWith: { first, _ in first })
    }

    /// The package's modules: not test targets, not beside the tests.
    var modules: [DeclaredTarget] { declarations.filter(\.isModule) }

    /// The shortest chain of dependencies from `name` to `dependency` (`[name, …, dependency]`), or `nil` when
    /// `name` does not depend on it: what a failure names, so the edge to remove is plain.
    func dependencyPath(from name: String, to dependency: String) -> [String]? {
        let byName = byName
        var cameFrom: [String: String] = [:]
        var queue = [name]
        var head = 0
        while head < queue.count {
            let current = queue[head]
            head += 1
            for next in byName[current]?.dependencies ?? [] where next != name && cameFrom[next] == nil {
                cameFrom[next] = current
                if next == dependency {
                    var path = [next]
                    while let previous = cameFrom[path[0]] { path.insert(previous, at: 0) }
                    return path
                }
                queue.append(next)
            }
        }
        return nil
    }

    /// The declaration starting at `tokens[index]` (`.kind(`) and the index just past its closing parenthesis.
    private static func declaration(in tokens: [ManifestToken], at index: Int) -> (DeclaredTarget, Int)? {
        guard index + 2 < tokens.count, tokens[index] == .punctuation("."),
              case .identifier(let word) = tokens[index + 1], let kind = DeclaredTarget.Kind(rawValue: word),
              tokens[index + 2] == .punctuation("("),
              let (arguments, end) = labelledArguments(in: tokens, from: index + 3)
        else { return nil }
        let target = DeclaredTarget(
            kind: kind,
            name: arguments["name"].flatMap(literal),
            path: arguments["path"].flatMap(literalOrPrefix),
            dependencies: arguments["dependencies"].map(dependencyNames) ?? [])
        return (target, end)
    }

    /// The arguments of a call whose `(` ends just before `start`, by label (unlabelled ones are dropped), and the
    /// index past its `)`; `nil` when the parentheses never close.
    private static func labelledArguments(in tokens: [ManifestToken], from start: Int) -> ([String: ArraySlice<ManifestToken>], Int)? {
        var arguments: [String: ArraySlice<ManifestToken>] = [:]
        var depth = 0
        var argumentStart = start
        var index = start
        func close(at end: Int) {
            let argument = tokens[argumentStart..<end]
            if argument.count >= 2, case .identifier(let label) = argument.first!,
               argument[argument.startIndex + 1] == .punctuation(":") {
                arguments[label] = argument.dropFirst(2)
            }
            argumentStart = end + 1
        }
        while index < tokens.count {
            switch tokens[index] {
            case .punctuation("("), .punctuation("["): depth += 1
            case .punctuation(")") where depth == 0:
                close(at: index)
                return (arguments, index + 1)
            case .punctuation(")"), .punctuation("]"): depth -= 1
            case .punctuation(",") where depth == 0: close(at: index)
            default: break
            }
            index += 1
        }
        return nil
    }

    /// A single plain string literal's text.
    private static func literal(_ value: ArraySlice<ManifestToken>) -> String? {
        guard value.count == 1, case .string(let text, interpolated: false) = value.first! else { return nil }
        return text
    }

    /// A single string literal's text, or the literal text before its first interpolation.
    private static func literalOrPrefix(_ value: ArraySlice<ManifestToken>) -> String? {
        guard value.count == 1, case .string(let text, _) = value.first! else { return nil }
        return text
    }

    /// The names in a `[...]` of dependencies — `"X"`, `.target(name: "X")`, `.byName(name: "X")`,
    /// `.product(name: "X", package: …)` — or `nil` when the value is anything else (a sum, a variable).
    private static func dependencyNames(_ value: ArraySlice<ManifestToken>) -> [String]? {
        guard value.first == .punctuation("["), value.last == .punctuation("]") else { return nil }
        let elements = Array(value.dropFirst().dropLast())
        var names: [String] = []
        var index = 0
        while index < elements.count {
            switch elements[index] {
            case .string(let name, interpolated: false):
                names.append(name)
                index += 1
            case .punctuation(".") where index + 2 < elements.count && elements[index + 2] == .punctuation("("):
                guard let (arguments, end) = labelledArguments(in: elements, from: index + 3),
                      let name = arguments["name"].flatMap(literal)
                else { return nil }
                names.append(name)
                index = end
            case .punctuation(","):
                index += 1
            default:
                return nil
            }
        }
        return names
    }
}
