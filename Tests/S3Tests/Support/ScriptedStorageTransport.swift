import Foundation
@testable import S3
import Synchronization

import HTTPTransport
import UploadEngine
import WireFormat

/// A `StorageTransport` in front of a real `HTTPClient` that records every S3 call and lets a test replace
/// chosen ones: answer instead of the server, answer after the server did, fail in transport, or hang until
/// cancelled. Part uploads can also be held until a number of them are in flight together.
final class ScriptedStorageTransport: StorageTransport {
    /// Which S3 operation a request is.
    enum Operation: Hashable, Sendable {
        case create, part(Int), complete, abort, delete, other
    }

    /// One call as the script sees it: the operation and how many times it has been seen (1-based).
    struct Call: Hashable, Sendable {
        var operation: Operation
        var attempt: Int
    }

    /// A call with the headers it carried.
    struct Record: Sendable {
        var call: Call
        var url: String
        var headers: [HTTPHeader]

        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// What to do instead of (or after) forwarding a call.
    enum Interposition: Sendable {
        /// Do not forward; answer this.
        case answer(HTTPResponse)
        /// Forward, then answer this instead of what the server said.
        case answerAfterSending(HTTPResponse)
        /// Do not forward; fail in transport.
        case fail(HTTPTransportError)
        /// Do not forward; wait until the calling task is cancelled.
        case hang
        /// Forward after this long (storage slow to answer, as CompleteMultipartUpload assembling a large object).
        case delay(Duration)
    }

    private struct State {
        var records: [Record] = []
        var partsInFlight = 0
        var mostPartsInFlight = 0
        var hanging = 0
        var barrierWaiters: [CheckedContinuation<Void, Never>] = []
        var barrierOpen = false
        var hangWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let client: HTTPClient
    private let script: @Sendable (Call) -> Interposition?
    private let partsTogether: Int
    private let state = Mutex(State())

    /// - Parameters:
    ///   - partsTogether: hold each part upload until this many are in flight at once (1: no holding).
    ///   - script: what to do with a call; nil forwards it untouched.
    init(client: HTTPClient, partsTogether: Int = 1, script: @escaping @Sendable (Call) -> Interposition? = { _ in nil }) {
        self.client = client
        self.partsTogether = partsTogether
        self.script = script
    }

    /// Every call so far, in order.
    var calls: [Call] { state.withLock { $0.records.map(\.call) } }

    /// Every call so far with its headers, in order.
    var records: [Record] { state.withLock { $0.records } }

    /// How many calls were made for `operation`.
    func count(_ operation: Operation) -> Int { calls.count { $0.operation == operation } }

    /// The most part uploads that were in flight at the same time.
    var mostPartsInFlight: Int { state.withLock { $0.mostPartsInFlight } }

    /// Returns once a call is hanging.
    func waitUntilHanging() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.hanging > 0 { return true }
                state.hangWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let call = record(request)
        return try await perform(call) { try await client.send(request) }
    }

    func upload(
        _ bytes: StagedBytes, range: Range<Int64>?, request: HTTPRequest,
        progress: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void
    ) async throws -> HTTPResponse {
        let call = record(request)
        state.withLock { state in
            state.partsInFlight += 1
            state.mostPartsInFlight = max(state.mostPartsInFlight, state.partsInFlight)
        }
        defer { state.withLock { $0.partsInFlight -= 1 } }
        await holdUntilEnoughParts()
        return try await perform(call) {
            try await client.upload(bytes, range: range, request: request, progress: progress)
        }
    }

    private func perform(_ call: Call, forward: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        switch script(call) {
        case nil:
            return try await forward()
        case .answer(let response):
            return response
        case .answerAfterSending(let response):
            _ = try await forward()
            return response
        case .fail(let error):
            throw error
        case .delay(let duration):
            try await Task.sleep(for: duration)
            return try await forward()
        case .hang:
            let waiters = state.withLock { state in
                state.hanging += 1
                defer { state.hangWaiters = [] }
                return state.hangWaiters
            }
            waiters.forEach { $0.resume() }
            // Only cancellation ends this sleep.
            try await Task.sleep(for: .seconds(3600))
            throw CancellationError()
        }
    }

    private func holdUntilEnoughParts() async {
        await withCheckedContinuation { continuation in
            let ready: [CheckedContinuation<Void, Never>] = state.withLock { state in
                if state.barrierOpen { return [continuation] }
                state.barrierWaiters.append(continuation)
                guard state.barrierWaiters.count >= partsTogether else { return [] }
                state.barrierOpen = true
                defer { state.barrierWaiters = [] }
                return state.barrierWaiters
            }
            ready.forEach { $0.resume() }
        }
    }

    private func record(_ request: HTTPRequest) -> Call {
        let operation = Self.operation(of: request)
        return state.withLock { state in
            let call = Call(operation: operation, attempt: state.records.count { $0.call.operation == operation } + 1)
            state.records.append(Record(call: call, url: request.url, headers: request.headers))
            return call
        }
    }

    static func operation(of request: HTTPRequest) -> Operation {
        let query = request.url.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        let items = query.split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
        let names = Set(items.compactMap(\.first))
        let method = request.method.uppercased()
        if names.contains("uploads") { return .create }
        if let part = items.first(where: { $0.first == "partNumber" })?.last, let number = Int(part) {
            return .part(number)
        }
        if names.contains("uploadId") { return method == "POST" ? .complete : method == "DELETE" ? .abort : .other }
        return method == "DELETE" ? .delete : .other
    }

    /// An S3 `<Error>` answer.
    static func error(_ status: Int, _ code: String, _ message: String = "injected") -> HTTPResponse {
        HTTPResponse(
            status: status,
            body: Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>\(code)</Code><Message>\(message)</Message></Error>".utf8))
    }
}
