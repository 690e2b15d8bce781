import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing
import WireFormat

/// Debian's Chromium, headless, driven over the DevTools protocol through a pipe (`--remote-debugging-pipe`): each
/// message is JSON ended by a NUL byte, written to the browser's fd 3 and read from its fd 4 — no WebSocket client.
///
/// The browser is spawned with `posix_spawn` (Foundation's `Process` cannot hand a child descriptors beyond the
/// standard three) in a process group of its own, so ``close()`` ends it and every helper process it started. Its
/// messages are read on a thread of its own and handed to the waiting calls through continuations.
///
/// `@unchecked Sendable`: the descriptors and the pid are written once in `init`; everything that changes is in
/// the `Mutex`.
final class HeadlessChromium: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private struct State {
        var nextId = 0
        var waiting: [Int: CheckedContinuation<Data, any Error>] = [:]
        var closed = false
    }

    private let pid: pid_t
    private let toBrowser: Int32
    private let fromBrowser: Int32
    private let state = Mutex(State())
    private var session = ""
    let logPath: String

    static let path = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Starts the browser with one page of `width`×`height` and attaches to it.
    init(width: Int = 1440, height: Int = 900, directory: URL) async throws {
        guard let executable = Self.path else { throw Failure(description: "chromium is not installed: run ops/install-deps test") }
        let profile = directory.appendingPathComponent("chromium-profile-\(UUID().uuidString.prefix(6))").path
        logPath = directory.appendingPathComponent("chromium.log").path
        var commands = [Int32](repeating: -1, count: 2)
        var answers = [Int32](repeating: -1, count: 2)
        guard pipe(&commands) == 0, pipe(&answers) == 0 else { throw Failure(description: "pipe failed") }
        // Close-on-exec at once: no other child started meanwhile may keep an end open (the browser would never see
        // its input end). Foundation's `Process` closes every descriptor past the standard three in its children anyway.
        for descriptor in commands + answers { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        // Out of the way of 3 and 4 first, so that dup2 in the child always makes a new descriptor, without close-on-exec.
        let childReads = fcntl(commands[0], F_DUPFD_CLOEXEC, 10)
        let childWrites = fcntl(answers[1], F_DUPFD_CLOEXEC, 10)
        let log = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer {
            for descriptor in [commands[0], answers[1], childReads, childWrites, log] { Glibc.close(descriptor) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, log, 1)
        posix_spawn_file_actions_adddup2(&actions, log, 2)
        posix_spawn_file_actions_adddup2(&actions, childReads, 3)
        posix_spawn_file_actions_adddup2(&actions, childWrites, 4)
        // Nothing else of the test process's: a socket another test holds must not live on in the browser.
        _ = spawnActionsCloseFrom(&actions, 5)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let arguments = [executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                         "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                         "--remote-debugging-pipe", "--user-data-dir=\(profile)", "--window-size=\(width),\(height)", "about:blank"]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, &attributes, &argv, environ)
        guard spawned == 0 else {
            Glibc.close(commands[1])
            Glibc.close(answers[0])
            throw Failure(description: "posix_spawn chromium: \(String(cString: strerror(spawned)))")
        }
        pid = child
        toBrowser = commands[1]
        fromBrowser = answers[0]
        Thread.detachNewThread { [self] in readAnswers() }
        let targets = try await call("Target.getTargets")
        guard let page = targets["targetInfos"]?.arrayValue?.first(where: { $0["type"] == "page" }),
              let targetId = page["targetId"]?.stringValue else { throw Failure(description: "chromium has no page") }
        let attached = try await call("Target.attachToTarget", ["targetId": .string(targetId), "flatten": true])
        session = attached["sessionId"]?.stringValue ?? ""
        _ = try await call("Page.enable", onPage: true)
        _ = try await call("Emulation.setDeviceMetricsOverride", ["width": .int(Int64(width)), "height": .int(Int64(height)), "deviceScaleFactor": 1, "mobile": false],
                           onPage: true)
    }

    /// Sends one command (to the page's session with `onPage`) and waits for its answer's `result`.
    @discardableResult
    func call(_ method: String, _ parameters: [String: JSONValue] = [:], onPage: Bool = false) async throws -> [String: JSONValue] {
        var message: [String: JSONValue] = ["method": .string(method), "params": .object(parameters)]
        if onPage { message["sessionId"] = .string(session) }
        var json = JSONWriter()
        json.value(.object(message))
        let bytes = Data(json.bytes)
        // Bounded: a browser that stopped answering fails the test instead of hanging it.
        let answered = await TestSupport.waitFor("chromium to answer \(method)", timeout: .seconds(60)) { () -> Result<Data, any Error> in
            do { return .success(try await self.send(bytes)) } catch { return .failure(error) }
        }
        guard let answered else { throw Failure(description: "\(method): no answer within 60 s") }
        let answer = try answered.get()
        guard let object = try JSONParser.parse(answer).objectValue else { return [:] }
        if let error = object["error"] { throw Failure(description: "\(method): \(error)") }
        return object["result"]?.objectValue ?? [:]
    }

    /// Writes one command (its JSON without the id) and waits for the raw answer.
    private func send(_ command: Data) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            let id: Int? = state.withLock { state in
                guard !state.closed else { return nil }
                state.nextId += 1
                state.waiting[state.nextId] = continuation
                return state.nextId
            }
            guard let id else { return continuation.resume(throwing: Failure(description: "chromium is closed")) }
            // The id goes in front: `{"id":N,` then the command's own members.
            var bytes = Data("{\"id\":\(id),".utf8)
            bytes.append(command.dropFirst())
            bytes.append(0)
            let written = bytes.withUnsafeBytes { write(toBrowser, $0.baseAddress, $0.count) }
            if written != bytes.count, let waiting = state.withLock({ $0.waiting.removeValue(forKey: id) }) {
                waiting.resume(throwing: Failure(description: "could not write to chromium"))
            }
        }
    }

    func navigate(_ url: String) async throws {
        try await call("Page.navigate", ["url": .string(url)], onPage: true)
    }

    /// The value of a JavaScript expression in the page (a promise is awaited); nil for `undefined` or a thrown error.
    @discardableResult
    func evaluate(_ expression: String) async throws -> JSONValue? {
        let result = try await call("Runtime.evaluate", ["expression": .string(expression), "awaitPromise": true, "returnByValue": true], onPage: true)
        guard result["exceptionDetails"] == nil else { return nil }
        return result["result"]?["value"]
    }

    /// Polls `expression` until it is truthy (a non-empty string, a true, a non-zero number); returns its value.
    func waitFor(_ what: String, _ expression: String, timeout: Duration = .seconds(20)) async throws -> JSONValue {
        let deadline = ContinuousClock.now + timeout
        var last: JSONValue?
        while ContinuousClock.now < deadline {
            last = try await evaluate(expression)
            if let value = last, Self.isTruthy(value) { return value }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw Failure(description: "the page never showed \(what) within \(timeout) (last: \(String(describing: last)))")
    }

    /// A PNG of the page as it is shown.
    func screenshot(to path: String) async throws {
        let result = try await call("Page.captureScreenshot", ["format": "png"], onPage: true)
        guard let encoded = result["data"]?.stringValue, let png = Data(base64Encoded: encoded) else {
            throw Failure(description: "no screenshot")
        }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try png.write(to: URL(fileURLWithPath: path))
    }

    /// Ends the browser and every process it started; waits for it.
    func close() {
        let waiting = state.withLock { state in
            state.closed = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume(throwing: Failure(description: "chromium closed")) }
        Glibc.close(toBrowser)
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    private static func isTruthy(_ value: JSONValue) -> Bool {
        switch value {
        case .bool(let flag): flag
        case .string(let text): !text.isEmpty
        case .int(let number): number != 0
        case .double(let number): number != 0
        case .null: false
        case .array, .object: true
        }
    }

    /// Reads NUL-terminated answers until the pipe ends; resumes the call each answers (events are dropped).
    private func readAnswers() {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(fromBrowser, &chunk, chunk.count)
            guard count > 0 else { break }
            buffer.append(contentsOf: chunk[0..<count])
            while let end = buffer.firstIndex(of: 0) {
                let message = buffer[buffer.startIndex..<end]
                buffer = Data(buffer[buffer.index(after: end)...])
                guard let answer = try? JSONParser.parse(message),
                      let id = answer["id"]?.wholeNumber.flatMap({ Int(exactly: $0) }),
                      let continuation = state.withLock({ $0.waiting.removeValue(forKey: id) }) else { continue }
                continuation.resume(returning: Data(message))
            }
        }
        Glibc.close(fromBrowser)
        let waiting = state.withLock { state in
            state.closed = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume(throwing: Failure(description: "chromium closed its pipe")) }
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the Glibc module map leaves out.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func spawnActionsCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32
