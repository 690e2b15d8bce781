import Foundation
import Synchronization
import WireFormat

/// What presigned URLs of one shape share: the same header names, lifetime, key, region, service and day, and no
/// query parameters of their own — every upload URL `presign.mode = s3` makes for a small file.
///
/// The canonical query of such a URL is the same text but for `X-Amz-Date`, and its canonical headers are the same
/// names in the same order; only the path, the header values and the time change. Made once, by the signer's own
/// general code, those parts are copied into each URL instead of being encoded, sorted and joined again: signing
/// one URL that way took some forty allocations, a tenth of a small job's.
final class SigV4PresignShape: Sendable {
    /// What a shape is made for; a request fits it when all of these are its own.
    struct Key: Hashable {
        let scope: SigningKeys.Scope
        let lifetime: Int
        /// The request's header names, as given and in its order.
        let names: [String]
    }

    let key: Key
    /// The canonical query up to `X-Amz-Date`'s value: `X-Amz-Algorithm=…&X-Amz-Credential=…&X-Amz-Date=`.
    let queryHead: [UInt8]
    /// The canonical query after `X-Amz-Date`'s value: `&X-Amz-Expires=…[&X-Amz-Security-Token=…]&X-Amz-SignedHeaders=…`.
    let queryTail: [UInt8]
    /// The canonical header names in canonical order, each with the request header it takes its value from
    /// (nil: `host`, the request's authority).
    let lines: [(name: String, header: Int?)]
    /// `content-type;host;…`.
    let signedHeaders: [UInt8]
    /// The credential scope, as the string to sign carries it.
    let scope: [UInt8]

    /// The shape of `request`'s URLs, or nil when its URLs have none to share: query parameters of its own, a
    /// header named `host`, or a name given twice (whose values canonical form joins).
    init?(of request: SigV4Request, key: Key, signer: SigV4Signer, time: SigV4Timestamp) {
        guard request.query.isEmpty else { return nil }
        let names = request.headers.map(\.lowercasedName)
        guard !names.contains("host"), Set(names).count == names.count else { return nil }
        self.key = key
        // Made by the general code, with a date of the same form in the place the next URL's goes: what differs
        // between the two cannot then be anything but that date.
        let signedHeaders = SigV4Signer.canonicalHeaders(request.headersWithHost).signedHeaders
        let scope = signer.credentialScope(time)
        let query = signer.authenticationQuery(scope: scope, signedHeaders: signedHeaders, lifetime: key.lifetime, at: time)
        let canonical = Array(SigV4Signer.canonicalQuery(query).utf8)
        let date = Array(("X-Amz-Date=" + time.amzDate).utf8)
        guard let at = canonical.firstRange(of: date) else { return nil }
        queryHead = Array(canonical[..<(at.upperBound - time.amzDate.utf8.count)])
        queryTail = Array(canonical[at.upperBound...])
        // Sorted as the general code sorts them; the names are distinct, so by name alone.
        lines = ([("host", nil)] + names.enumerated().map { ($0.element, Optional($0.offset)) })
            .sorted { $0.0 < $1.0 }
            .map { (name: $0.0, header: $0.1) }
        self.signedHeaders = Array(signedHeaders.utf8)
        self.scope = Array(scope.utf8)
    }

    /// The canonical request of `request`, which fits this shape, signed at `time` and written into `bytes`.
    func writeCanonicalRequest(_ request: SigV4Request, method: String, encodedPath: String, time: SigV4Timestamp,
                               into bytes: inout [UInt8]) {
        let newline = UInt8(ascii: "\n")
        bytes.append(contentsOf: method.utf8)
        bytes.append(newline)
        bytes.append(contentsOf: encodedPath.utf8)
        bytes.append(newline)
        writeQuery(time: time, into: &bytes)
        bytes.append(newline)
        for line in lines {
            bytes.append(contentsOf: line.name.utf8)
            bytes.append(UInt8(ascii: ":"))
            if let header = line.header {
                bytes.append(contentsOf: SigV4Signer.normalizedValue(request.headers[header].value).utf8)
            } else {
                bytes.append(contentsOf: request.authority.utf8)
            }
            bytes.append(newline)
        }
        bytes.append(newline)
        bytes.append(contentsOf: signedHeaders)
        bytes.append(newline)
        bytes.append(contentsOf: request.payloadHash.utf8)
    }

    /// The canonical query at `time`.
    func writeQuery(time: SigV4Timestamp, into bytes: inout [UInt8]) {
        bytes.append(contentsOf: queryHead)
        bytes.append(contentsOf: time.amzDate.utf8)
        bytes.append(contentsOf: queryTail)
    }

    /// An upper bound of the canonical request's length, to reserve once.
    func canonicalRequestCapacity(_ request: SigV4Request, encodedPath: String) -> Int {
        var count = request.method.utf8.count + encodedPath.utf8.count + queryHead.count + 16 + queryTail.count
            + signedHeaders.count + request.payloadHash.utf8.count + request.authority.utf8.count + 8
        for line in lines {
            count += line.name.utf8.count + 2 + (line.header.map { request.headers[$0].value.utf8.count } ?? 0)
        }
        return count
    }
}

/// The few shapes a signer's URLs take (with and without a checksum, say), kept for the day they sign in.
final class SigV4PresignShapes: Sendable {
    /// More than an upload signer alternates between; past it the oldest is made again when next needed.
    private static let limit = 4
    private let shapes = Mutex<[SigV4PresignShape]>([])

    /// Shapes kept.
    var count: Int { shapes.withLock(\.count) }

    /// The shape `request` takes for `scope` and `lifetime`, made when none is kept; nil when its URLs have none.
    func shape(of request: SigV4Request, scope: SigningKeys.Scope, lifetime: Int, signer: SigV4Signer,
               time: SigV4Timestamp) -> SigV4PresignShape? {
        // Matched without building a key: this runs once per URL.
        let kept = shapes.withLock { shapes in
            shapes.first {
                $0.key.lifetime == lifetime && $0.key.scope == scope
                    && $0.key.names.elementsEqual(request.headers.lazy.map(\.name))
            }
        }
        if let kept { return kept }
        let key = SigV4PresignShape.Key(scope: scope, lifetime: lifetime, names: request.headers.map(\.name))
        guard let made = SigV4PresignShape(of: request, key: key, signer: signer, time: time) else { return nil }
        shapes.withLock { shapes in
            // Another day's shapes never fit again.
            shapes.removeAll { $0.key.scope != key.scope }
            if shapes.count >= Self.limit { shapes.removeFirst() }
            shapes.append(made)
        }
        return made
    }
}
