import Foundation
import Synchronization
import Testing

/// A moto S3 server on 127.0.0.1 with an ephemeral port, started once for a suite by the `.motoServer` trait and
/// stopped when the suite ends; the S3 integration tests and the end-to-end tests run against it.
///
/// The executable is `$ATTACHE_MOTO_SERVER`, else `moto_server` on `PATH` (`ops/test` puts the project's venv
/// there), else the project's `.venv/bin/moto_server`; moto runs under the Python its `#!` line names.
public struct S3MotoServer: Sendable {
    /// `http://127.0.0.1:<port>`.
    public var endpoint: String
    public var port: Int
    private let output: S3MotoOutput

    @TaskLocal public static var current: S3MotoServer?

    /// Every request moto has answered so far, in the order it logged them (as it finished each one): what reached
    /// storage, counted by a party other than the client — a request whose body was cut off is there too, answered
    /// 400.
    public var requests: [S3MotoRequest] { output.requests }

    /// The last lines moto printed that were not request lines (a Python traceback behind a 500, say), as the tail
    /// of a failure message: what a failing test shows beside the answer it did not expect; empty when there are none.
    public var printedNote: String {
        let printed = output.diagnostics
        return printed.isEmpty ? "" : "\nmoto printed:\n" + printed
    }

    /// The server of the running suite.
    public static func require() throws -> S3MotoServer {
        try #require(current, "the suite needs the .motoServer trait")
    }

    /// The Python that runs moto: the interpreter on the `#!` line of the first `moto_server` script whose line names
    /// a Python.
    ///
    /// A `moto_server` that is not such a script is passed over: pyenv's shim (`#!/usr/bin/env bash`) on a
    /// developer's `PATH` made every moto suite fail with "exited with 125", `env`'s answer to the `-c` meant for
    /// Python.
    static func python() throws -> String {
        if let configured = ProcessInfo.processInfo.environment["ATTACHE_MOTO_SERVER"] {
            return try interpreter(of: configured)
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let candidates: [String?] = [Subprocess.findOnPath("moto_server"), packageRoot.appendingPathComponent(".venv/bin/moto_server").path]
        for case let script? in candidates {
            if let python = try? interpreter(of: script) { return python }
        }
        throw S3IntegrationFailure(
            "no moto_server script run by Python (looked on PATH and in .venv/bin): run ops/install-deps test, put "
                + ".venv/bin on PATH or set ATTACHE_MOTO_SERVER")
    }

    /// The Python that runs the `moto_server` script: its `#!` line's interpreter.
    static func interpreter(of script: String) throws -> String {
        let head = try FileHandle(forReadingFrom: URL(fileURLWithPath: script)).read(upToCount: 512) ?? Data()
        let firstLine = String(decoding: head, as: UTF8.self).split(whereSeparator: \.isNewline).first ?? ""
        guard firstLine.hasPrefix("#!"), let path = firstLine.dropFirst(2).split(separator: " ").first,
            path.split(separator: "/").last?.hasPrefix("python") == true,
            FileManager.default.isExecutableFile(atPath: String(path))
        else {
            throw S3IntegrationFailure("\(script) does not start with a #! line naming its Python")
        }
        return String(path)
    }

    /// Starts moto and runs `body` with it, then stops it. `environment` is added to moto's (e.g. to turn on
    /// signature checking with `INITIAL_NO_AUTH_ACTION_COUNT`).
    public static func withServer(
        environment: [String: String] = [:], _ body: @Sendable (S3MotoServer) async throws -> Void
    ) async throws {
        // moto runs under a small Python prologue that exits the moment its stdin (our pipe) closes: at `stop`, or
        // when the test process dies for any reason, even killed.
        // Port 0: the OS picks a free port and werkzeug prints it, so parallel suites never collide.
        let arguments = [
            "-c",
            """
            import os, sys, threading
            def leash():
                sys.stdin.buffer.read()
                os._exit(0)
            threading.Thread(target=leash, daemon=True).start()
            from moto.server import main
            main(["-H", "127.0.0.1", "-p", "0"])
            """,
        ]
        let process = try Subprocess(
            try python(), arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            input: .pipe, output: .pipe, error: .standardOutput)
        guard let leash = process.input, let output = process.output else { preconditionFailure("pipes asked for") }
        let moto = S3MotoOutput()
        // The handler keeps draining after start-up: werkzeug logs every request (kept as `requests`), and a full pipe
        // would stall it.
        output.readabilityHandler = { handle in
            let chunk = handle.availableData
            if chunk.isEmpty {
                handle.readabilityHandler = nil
                return
            }
            moto.received(chunk)
        }
        process.whenExited { moto.exited(status: $0) }
        let port: Int
        do {
            guard let started = await waitFor("moto_server to serve", timeout: .seconds(60), { () -> Result<Int, any Error> in
                do { return .success(try await moto.port()) } catch { return .failure(error) }
            }) else { throw S3IntegrationFailure("moto_server did not serve within 60 s") }
            port = try started.get()
        } catch {
            await stop(leash, moto)
            throw error
        }
        let server = S3MotoServer(endpoint: "http://127.0.0.1:\(port)", port: port, output: moto)
        do {
            try await body(server)
        } catch {
            await stop(leash, moto)
            throw error
        }
        await stop(leash, moto)
    }

    private static func stop(_ leash: FileHandle, _ moto: S3MotoOutput) async {
        try? leash.close()
        await waitFor("moto_server to exit") { await moto.waitForExit() }
    }
}

/// Why an integration test could not run its server or client.
public struct S3IntegrationFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Start-up, request log and exit of one moto process, fed by its pipe and termination handlers (any thread).
private final class S3MotoOutput: Sendable {
    private struct State {
        var text = ""
        var port: Int?
        /// Output after start-up not yet ending in a newline.
        var partialLine = ""
        var requests: [S3MotoRequest] = []
        /// Other lines after start-up, the last `diagnosticLines` of them (copied out of the chunk they came in,
        /// which a substring would keep whole).
        var diagnostics: [String] = []
        var exitStatus: Int32?
        var portWaiter: CheckedContinuation<Int, any Error>?
        var exitWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    private static let diagnosticLines = 80

    var requests: [S3MotoRequest] { state.withLock { $0.requests } }

    var diagnostics: String { state.withLock { $0.diagnostics.joined(separator: "\n") } }

    func received(_ chunk: Data) {
        let waiter: (CheckedContinuation<Int, any Error>, Int)? = state.withLock { state in
            guard state.port == nil else {
                let lines = (state.partialLine + String(decoding: chunk, as: UTF8.self)).split(separator: "\n", omittingEmptySubsequences: false)
                state.partialLine = String(lines.last ?? "")
                for line in lines.dropLast() {
                    if let request = S3MotoRequest(logLine: line) {
                        state.requests.append(request)
                    } else {
                        state.diagnostics.append(String(line))
                        state.diagnostics.removeFirst(max(0, state.diagnostics.count - Self.diagnosticLines))
                    }
                }
                return nil
            }
            state.text += String(decoding: chunk, as: UTF8.self)
            guard let port = Self.port(in: state.text) else { return nil }
            state.port = port
            defer { state.portWaiter = nil }
            return state.portWaiter.map { ($0, port) }
        }
        if let (continuation, port) = waiter { continuation.resume(returning: port) }
    }

    func exited(status: Int32) {
        let (portWaiter, exitWaiters, text) = state.withLock { state in
            state.exitStatus = status
            defer {
                state.portWaiter = nil
                state.exitWaiters = []
            }
            return (state.portWaiter, state.exitWaiters, state.text)
        }
        portWaiter?.resume(throwing: S3IntegrationFailure("moto_server exited with \(status) before serving:\n\(text)"))
        for waiter in exitWaiters { waiter.resume() }
    }

    func port() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<Int, any Error>? = state.withLock { state in
                if let port = state.port { return .success(port) }
                if let status = state.exitStatus {
                    return .failure(S3IntegrationFailure("moto_server exited with \(status):\n\(state.text)"))
                }
                state.portWaiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    func waitForExit() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if state.exitStatus != nil { return true }
                state.exitWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    private static func port(in text: String) -> Int? {
        guard let range = text.range(of: "Running on http://127.0.0.1:") else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isNumber }
        // The banner line may arrive in pieces; only trust the number once the line has ended.
        guard text[range.upperBound...].dropFirst(digits.count).first?.isNewline == true else { return nil }
        return Int(digits)
    }
}

/// Runs a suite's tests with one moto server for the whole suite (`S3MotoServer.current`).
public struct S3MotoServerTrait: SuiteTrait, TestScoping {
    var environment: [String: String]
    public var isRecursive: Bool { false }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await S3MotoServer.withServer(environment: environment) { server in
            try await S3MotoServer.$current.withValue(server) { try await function() }
        }
    }
}

extension Trait where Self == S3MotoServerTrait {
    /// One moto server for the suite, in its default mode (no signature checks).
    public static var motoServer: Self { S3MotoServerTrait(environment: [:]) }

    /// One moto server for the suite that checks `Authorization` signatures (with IAM policies) after its first
    /// `unauthenticatedRequests` requests, which create the IAM user whose key signs the rest.
    public static func motoServer(checkingSignaturesAfter unauthenticatedRequests: Int) -> Self {
        S3MotoServerTrait(environment: ["INITIAL_NO_AUTH_ACTION_COUNT": String(unauthenticatedRequests)])
    }
}
