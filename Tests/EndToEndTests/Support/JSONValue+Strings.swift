import WireFormat

extension JSONValue {
    /// The elements of an array of strings (`fileIds`, kcat's `headers`); nil for anything else, an array with one
    /// element of another type included.
    var strings: [String]? {
        guard let elements = arrayValue else { return nil }
        let texts = elements.compactMap(\.stringValue)
        return texts.count == elements.count ? texts : nil
    }
}
