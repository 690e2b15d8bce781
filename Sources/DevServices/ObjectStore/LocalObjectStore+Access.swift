import Foundation

extension LocalObjectStore {
    /// The unsigned URL of `key`: readable with GET/HEAD when `publicRead` is on.
    public func url(forKey key: String) throws -> String {
        baseURL + (try ObjectKey(key)).urlPath
    }

    /// A URL for `method` on `key`, valid until `expiresAt` (whole seconds; a past date gives an expired URL).
    public func signedURL(method: String, key: String, expiresAt: Date) throws -> String {
        let key = try ObjectKey(key)
        let expires = Int64(expiresAt.timeIntervalSince1970.rounded(.down))
        let signature = signer.signature(method: method, path: key.requestPath, expires: expires)
        return "\(baseURL)\(key.urlPath)?expires=\(expires)&sig=\(signature)"
    }

    /// What is stored under `key`, if anything.
    public func object(forKey key: String) -> StoredObject? {
        (try? ObjectKey(key)).flatMap { storage.object($0) }
    }

    /// Every stored object, sorted by key.
    public var objects: [StoredObject] {
        storage.objects
    }

    /// The bytes stored under `key`, or nil when there is no such object.
    public func contents(ofKey key: String) throws -> Data? {
        guard let object = object(forKey: key) else { return nil }
        return try Data(contentsOf: object.file)
    }

    /// Every request the store answered itself (not those answered by an injected fault), in completion order.
    public var requests: [ObjectRequestRecord] {
        storage.requests
    }
}
