import Foundation
import Synchronization
import Testing
import UploadEngine

/// A stager whose behaviour a test scripts per call; it records what it staged and what it got back.
public final class ScriptedStager: SourceStager {
    public typealias Script = @Sendable (FileItem) async throws -> StagedFile
    /// How an upload attempt ends (``SourceStager/finishUpload(of:uploaded:)``): the digest, or the attempt's failure.
    public typealias Finish = @Sendable (StagedFile, _ uploaded: Bool) async throws -> String
    private let script: Script
    private let keeps: @Sendable (StagedFile) -> Bool
    private let finish: Finish
    private let log = Mutex<(staged: [String], released: [StagedFile], resuming: [String: MultipartUpload])>(([], [], [:]))
    private let releases = EventCounter()

    public init(_ script: @escaping Script = ScriptedStager.fromInlineData,
                keeps: @escaping @Sendable (StagedFile) -> Bool = { _ in true },
                finish: @escaping Finish = { staged, _ in staged.sha256 }) {
        self.script = script
        self.keeps = keeps
        self.finish = finish
    }

    public func keep(_ staged: StagedFile) -> Bool { keeps(staged) }

    public func finishUpload(of staged: StagedFile, uploaded: Bool) async throws -> String {
        try await finish(staged, uploaded)
    }

    /// Returns once `count` staged files have been released (at most 30 s: then an issue is recorded).
    public func waitForReleases(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        await releases.wait(for: count, sourceLocation: sourceLocation)
    }

    public func stage(_ file: FileItem, batchId: String, sizeLimit: Int64) async throws -> StagedFile {
        log.withLock { $0.staged.append(file.fileId) }
        return try await script(file)
    }

    public func stage(_ file: FileItem, batchId: String, sizeLimit: Int64, resuming upload: MultipartUpload?) async throws
        -> StagedFile {
        log.withLock { $0.resuming[file.fileId] = upload }
        return try await stage(file, batchId: batchId, sizeLimit: sizeLimit)
    }

    public func release(_ staged: StagedFile) async {
        log.withLock { $0.released.append(staged) }
        releases.increment()
    }

    /// File ids in the order staging was asked for.
    public var stagedFileIds: [String] { log.withLock { $0.staged } }
    /// By file id, the multipart upload the file was last staged to resume.
    public var resumedUploads: [String: MultipartUpload] { log.withLock { $0.resuming } }
    public var released: [StagedFile] { log.withLock { $0.released } }

    /// Stages inline data as its size, url and path sources as 1 KiB; the digest is a stand-in derived from the id.
    public static let fromInlineData: Script = { file in
        let size: Int64 = if case .data(let bytes) = file.source { Int64(bytes.count) } else { 1024 }
        return StagedFile(path: "/staging/\(file.fileId)", size: size, sha256: "sha-\(file.fileId)", mimeType: file.mimeType)
    }
}

/// A presigner whose answers a test scripts; it records every call's file ids.
public final class ScriptedPresigner: Presigner {
    public typealias Script = @Sendable ([PresignFile]) async throws -> [String: PresignOutcome]
    private let script: Script
    private let log = Mutex<[[String]]>([])

    public init(_ script: @escaping Script = ScriptedPresigner.validTargets) {
        self.script = script
    }

    public func presign(_ files: [PresignFile], in context: BatchContext) async throws -> [String: PresignOutcome] {
        log.withLock { $0.append(files.map(\.fileId)) }
        return try await script(files)
    }

    /// The file ids of each call, in call order.
    public var calls: [[String]] { log.withLock { $0 } }

    /// A target for every file, valid for an hour from the real epoch's far future (never expiring in tests).
    public static let validTargets: Script = { files in
        Dictionary(uniqueKeysWithValues: files.map { ($0.fileId, .target(target(for: $0.fileId))) })
    }

    public static func target(for fileId: String, expiresAt: Date? = nil) -> UploadTarget {
        UploadTarget(uploadURL: "https://store.test/up/\(fileId)?sig=secret", fileURL: "https://cdn.test/\(fileId)", expiresAt: expiresAt)
    }
}

/// An uploader whose behaviour a test scripts; it records calls and the most transfers it saw at once.
public final class ScriptedUploader: Uploader {
    public typealias Progress = @Sendable (Int64, Int64) -> Void
    public typealias Script = @Sendable (UploadTransfer, Progress) async throws -> Void
    private let script: Script
    private let log = Mutex<(calls: [UploadTransfer], running: Int, peak: Int)>(([], 0, 0))

    public init(_ script: @escaping Script = { transfer, progress in progress(transfer.staged.size, transfer.staged.size) }) {
        self.script = script
    }

    public func upload(_ transfer: UploadTransfer, progress: @escaping @Sendable (Int64, Int64) -> Void) async throws {
        log.withLock {
            $0.calls.append(transfer)
            $0.running += 1
            $0.peak = max($0.peak, $0.running)
        }
        defer { log.withLock { $0.running -= 1 } }
        try await script(transfer, progress)
    }

    public var calls: [UploadTransfer] { log.withLock { $0.calls } }
    /// The most uploads that were running at the same moment.
    public var peakConcurrency: Int { log.withLock { $0.peak } }
}

/// A one-shot signal tests use to hold a fake operation until they let it go.
public final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    public func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if open { continuation.resume() }
        }
    }

    public func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }
}

/// A counter a test can wait on.
public final class EventCounter: Sendable {
    private let state = Mutex<(count: Int, waiters: [(Int, CheckedContinuation<Void, Never>)])>((0, []))

    public init() {}

    public var count: Int { state.withLock { $0.count } }

    public func increment() {
        let ready = state.withLock { state in
            state.count += 1
            let count = state.count
            defer { state.waiters.removeAll { $0.0 <= count } }
            return state.waiters.filter { $0.0 <= count }.map(\.1)
        }
        ready.forEach { $0.resume() }
    }

    /// Returns once the count reaches `target` — or after `timeout`, with an issue recorded (``waitFor(_:timeout:sourceLocation:_:)``).
    public func wait(for target: Int, timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation) async {
        await waitFor("the count to reach \(target)", timeout: timeout, sourceLocation: sourceLocation) { await self.reach(target) }
    }

    private func reach(_ target: Int) async {
        await withCheckedContinuation { continuation in
            let reached = state.withLock { state in
                if state.count >= target { return true }
                state.waiters.append((target, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }
}
