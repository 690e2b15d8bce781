import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// A parsed XML element of an S3 answer: its local name, its own text and its child elements.
///
/// S3's documents are small and shallow, so a tree is simpler to query than a streaming parser.
public struct S3XMLElement: Sendable, Hashable {
    /// The local name (namespace prefix removed).
    public var name: String
    /// The character data directly inside this element, untrimmed.
    public var text: String
    /// The child elements, in document order.
    public var children: [S3XMLElement]

    /// Why a body is not an XML document (always transient for a store: truncated answers happen).
    public struct Malformed: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong with the body.
        public var message: String
        public var description: String { message }
    }

    /// An element with the given parts.
    public init(name: String, text: String = "", children: [S3XMLElement] = []) {
        self.name = name
        self.text = text
        self.children = children
    }

    /// Parses a document and returns its root element.
    ///
    /// Leading whitespace is skipped first: S3 may write spaces before the document while a long operation
    /// (CompleteMultipartUpload) runs, and an XML declaration is only legal at the very start.
    /// - Throws: `S3XMLElement.Malformed` for an empty, non-UTF-8 or ill-formed document.
    public static func parse(_ data: Data) throws(Malformed) -> S3XMLElement {
        let start = data.firstIndex { !(0x20 == $0 || 0x09 == $0 || 0x0A == $0 || 0x0D == $0) }
        guard let start else {
            throw Malformed(message: "the XML answer is empty")
        }
        // S3 writes UTF-8. A body that is not is refused here, before FoundationXML, which traps on an element
        // name whose bytes are not UTF-8 (libxml2 reports the element before it fails the document).
        guard String(validating: data[start...], as: UTF8.self) != nil else {
            throw Malformed(message: "the XML answer is not UTF-8")
        }
        // Nor does FoundationXML survive a processing instruction without data (`<?x?>`: it reads the data libxml2
        // passes as NULL as a C string). S3 writes none but the XML declaration, so any other is refused.
        guard !holdsProcessingInstruction(data[start...]) else {
            throw Malformed(message: "the XML answer holds a processing instruction")
        }
        let parser = XMLParser(data: Data(data[start...]))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        let builder = S3XMLTreeBuilder()
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            let reason = parser.parserError.map { String(describing: $0) } ?? "no root element"
            throw Malformed(message: "the XML answer is not well-formed (\(reason))")
        }
        return root
    }

    /// Whether `document` has a `<?` other than its leading XML declaration (`<?xml` and a space): a processing
    /// instruction, or the text `<?` inside a comment or CDATA section, which S3 never writes either.
    static func holdsProcessingInstruction(_ document: Data.SubSequence) -> Bool {
        let open: [UInt8] = [UInt8(ascii: "<"), UInt8(ascii: "?")]
        var rest = document[...]
        let declaration = Array("<?xml".utf8)
        if rest.starts(with: declaration), let after = rest.dropFirst(declaration.count).first,
           after == 0x20 || after == 0x09 || after == 0x0A || after == 0x0D {
            // A declaration holds no `<`: one that seems to end after one is not a declaration.
            guard let end = rest.firstRange(of: [UInt8(ascii: "?"), UInt8(ascii: ">")]),
                  !rest[rest.index(rest.startIndex, offsetBy: 2)..<end.lowerBound].contains(UInt8(ascii: "<")) else {
                return true
            }
            rest = rest[end.upperBound...]
        }
        return rest.firstRange(of: open) != nil
    }

    /// The first child called `name`.
    public func child(_ name: String) -> S3XMLElement? {
        children.first { $0.name == name }
    }

    /// Every child called `name`, in document order.
    public func children(named name: String) -> [S3XMLElement] {
        children.filter { $0.name == name }
    }

    /// The trimmed text of the first child called `name`.
    public func childText(_ name: String) -> String? {
        child(name).map { $0.text.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// This element or the first descendant called `name`, depth first.
    public func firstDescendant(named name: String) -> S3XMLElement? {
        if self.name == name { return self }
        for child in children {
            if let found = child.firstDescendant(named: name) { return found }
        }
        return nil
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` escaped for use as element content.
    ///
    /// By scalar, not by `Character`: a `<` followed by a combining mark is one character that is not `"<"`, and
    /// went out raw.
    public static func escape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
            case "'": out.append(contentsOf: "&apos;".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }
}

/// Collects `XMLParser` events into an `S3XMLElement` tree; used by one parse on one thread, then dropped.
private final class S3XMLTreeBuilder: NSObject, XMLParserDelegate {
    private var stack: [S3XMLElement] = []
    /// The document element, once it has closed.
    var root: S3XMLElement?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        let local = elementName.split(separator: ":").last.map(String.init) ?? elementName
        stack.append(S3XMLElement(name: local))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        guard let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }
}
