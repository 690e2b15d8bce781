import CProcessSpawn
import Foundation
import Glibc
import Synchronization

/// A child process the tests start with `posix_spawn`, and its exit.
///
/// Not Foundation's `Process`: on Linux its `run()` lists `/proc/self/fd` and copies a whole 256-byte `d_name` out of
/// each directory entry, reading past glibc's buffer (swift-corelibs-foundation#5472). Now and then that read meets an
/// unmapped page and the whole test process dies with SIGSEGV, the more likely the more descriptors are open.
///
/// The child gets descriptors 0–2 as asked and nothing else (every other one is closed in it), no blocked signals and
/// default dispositions: the test runner blocks and ignores some, which a child would otherwise inherit. A thread of
/// its own waits for the exit, so neither waiting nor a termination callback ever holds a cooperative thread.
public final class Subprocess: Sendable {
    /// Where the child's standard input comes from.
    public enum Input: Sendable {
        case null
        case file(String)
        /// A pipe whose writing end is `input`; closing it is the child's end of input.
        case pipe
    }

    /// Where the child's standard output or error goes.
    public enum Output: Sendable {
        case null
        /// Created or truncated.
        case file(String)
        /// A pipe whose reading end is `output` (or `errorOutput`).
        case pipe
        /// Standard error only: wherever standard output goes.
        case standardOutput
    }

    public let pid: pid_t
    /// The writing end of the child's standard input, for `.pipe`.
    public let input: FileHandle?
    /// The reading end of the child's standard output, for `.pipe`.
    public let output: FileHandle?
    /// The reading end of the child's standard error, for `.pipe`.
    public let errorOutput: FileHandle?
    private let exit: ExitWatch

    /// Starts `executable` (a path, not looked up on `PATH`) with `arguments`; `environment` nil inherits ours.
    public init(_ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
                directory: String? = nil, input: Input = .null, output: Output = .null, error: Output = .null) throws {
        var plan = SpawnPlan()
        defer { plan.release() }
        try plan.connect(input, to: 0)
        try plan.connect(output, to: 1)
        try plan.connect(error, to: 2)
        try plan.closeTheRest()
        if let directory { try plan.changeDirectory(to: directory) }
        let variables = environment.map { $0.map { "\($0.key)=\($0.value)" } }
        pid = try plan.spawn(executable, [executable] + arguments, environment: variables)
        self.input = plan.parentEnds[0]
        self.output = plan.parentEnds[1]
        self.errorOutput = plan.parentEnds[2]
        exit = ExitWatch(pid: pid)
    }

    /// Whether the child has not been seen to exit yet.
    public var isRunning: Bool { exit.status == nil }

    /// The exit code, or the number of the signal that ended it, as Foundation's `terminationStatus`; nil while running.
    public var terminationStatus: Int32? { exit.status }

    public func signal(_ number: Int32) { kill(pid, number) }

    /// Waits for the exit without holding a thread; its `terminationStatus`.
    public func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in exit.whenExited { continuation.resume(returning: $0) } }
    }

    /// Blocks the calling thread until the exit: only from threads that may block (a connection's, a dispatch queue's).
    public func waitBlocking() -> Int32 {
        let done = DispatchSemaphore(value: 0)
        exit.whenExited { _ in done.signal() }
        done.wait()
        return exit.status ?? -1
    }

    /// Calls `handler` once, on the exit (at once when it has happened), from any thread.
    public func whenExited(_ handler: @escaping @Sendable (Int32) -> Void) { exit.whenExited(handler) }
}

extension Subprocess {
    /// What a command printed, and how it ended.
    public struct Outcome: Sendable {
        public var status: Int32
        public var output: Data
        public var errorOutput: Data

        public var outputText: String { String(decoding: output, as: UTF8.self) }
        public var errorText: String { String(decoding: errorOutput, as: UTF8.self) }
    }

    /// Runs a command to its exit, with `input` as its standard input; output goes through files, so it may be
    /// large, and a daemon it forks cannot hold the reading open. `mergeError` sends standard error to `output`.
    public static func run(_ executable: String, _ arguments: [String], input: Data? = nil,
                           environment: [String: String]? = nil, mergeError: Bool = false) async throws -> Outcome {
        let files = try CapturedOutput(input: input)
        defer { files.remove() }
        let process = try files.start(executable, arguments, environment: environment, mergeError: mergeError)
        return try files.outcome(status: await process.exitStatus())
    }

    /// `run`, blocking the calling thread: only from threads that may block.
    public static func runBlocking(_ executable: String, _ arguments: [String], input: Data? = nil,
                                   mergeError: Bool = false) throws -> Outcome {
        let files = try CapturedOutput(input: input)
        defer { files.remove() }
        let process = try files.start(executable, arguments, environment: nil, mergeError: mergeError)
        return try files.outcome(status: process.waitBlocking())
    }

    /// The first executable called `name` on `PATH`.
    public static func findOnPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// Why a child process could not be started.
public struct SubprocessFailure: Error, CustomStringConvertible {
    public var description: String
    init(_ step: String, _ code: Int32) { description = "\(step): \(String(cString: strerror(code)))" }
}

/// A temporary directory holding one run's input and output files.
private struct CapturedOutput {
    let directory: String

    init(input: Data?) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if let input { try input.write(to: URL(fileURLWithPath: "\(directory)/in")) }
    }

    func start(_ executable: String, _ arguments: [String], environment: [String: String]?,
               mergeError: Bool) throws -> Subprocess {
        let hasInput = FileManager.default.fileExists(atPath: "\(directory)/in")
        return try Subprocess(executable, arguments, environment: environment,
                              input: hasInput ? .file("\(directory)/in") : .null, output: .file("\(directory)/out"),
                              error: mergeError ? .standardOutput : .file("\(directory)/err"))
    }

    func outcome(status: Int32) throws -> Subprocess.Outcome {
        let error = (try? Data(contentsOf: URL(fileURLWithPath: "\(directory)/err"))) ?? Data()
        return Subprocess.Outcome(status: status, output: try Data(contentsOf: URL(fileURLWithPath: "\(directory)/out")),
                                  errorOutput: error)
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

/// The file actions and attributes of one `posix_spawn`, and the pipe ends it made.
private struct SpawnPlan {
    private var actions = posix_spawn_file_actions_t()
    private var attributes = posix_spawnattr_t()
    /// Pipe ends the child gets, closed here once it has them (or the spawn failed).
    private var childEnds: [Int32] = []
    /// Pipe ends the parent keeps, by the child's descriptor they lead to or from.
    private(set) var parentEnds: [Int32: FileHandle] = [:]

    init() {
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number: Int32 in 1..<32 where number != SIGKILL && number != SIGSTOP { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    }

    mutating func connect(_ input: Subprocess.Input, to descriptor: Int32) throws {
        switch input {
        case .null: try open(descriptor, "/dev/null", O_RDONLY)
        case .file(let path): try open(descriptor, path, O_RDONLY)
        case .pipe: try pipe(descriptor, childReads: true)
        }
    }

    mutating func connect(_ output: Subprocess.Output, to descriptor: Int32) throws {
        switch output {
        case .null: try open(descriptor, "/dev/null", O_WRONLY)
        case .file(let path): try open(descriptor, path, O_WRONLY | O_CREAT | O_TRUNC)
        case .pipe: try pipe(descriptor, childReads: false)
        case .standardOutput: try check("dup2", posix_spawn_file_actions_adddup2(&actions, 1, descriptor))
        }
    }

    mutating func closeTheRest() throws {
        try check("closefrom", posix_spawn_file_actions_addclosefrom_np(&actions, 3))
    }

    mutating func changeDirectory(to path: String) throws {
        try check("chdir \(path)", posix_spawn_file_actions_addchdir_np(&actions, path))
    }

    mutating func spawn(_ executable: String, _ arguments: [String], environment: [String]?) throws -> pid_t {
        let argv = CStringArray(arguments)
        defer { argv.free() }
        let envp = environment.map(CStringArray.init)
        defer { envp?.free() }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv.pointers, envp?.pointers ?? environ)
        for end in childEnds { close(end) }
        childEnds = []
        guard code == 0 else {
            parentEnds = [:]
            throw SubprocessFailure("posix_spawn \(executable)", code)
        }
        return pid
    }

    mutating func release() {
        for end in childEnds { close(end) }
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attributes)
    }

    private mutating func open(_ descriptor: Int32, _ path: String, _ flags: Int32) throws {
        try check("open \(path)", posix_spawn_file_actions_addopen(&actions, descriptor, path, flags, 0o644))
    }

    private mutating func pipe(_ descriptor: Int32, childReads: Bool) throws {
        var ends: [Int32] = [0, 0]
        guard pipe2(&ends, O_CLOEXEC) == 0 else { throw SubprocessFailure("pipe", errno) }
        let (child, parent) = childReads ? (ends[0], ends[1]) : (ends[1], ends[0])
        childEnds.append(child)
        parentEnds[descriptor] = FileHandle(fileDescriptor: parent, closeOnDealloc: true)
        try check("dup2", posix_spawn_file_actions_adddup2(&actions, child, descriptor))
    }

    private func check(_ step: String, _ code: Int32) throws {
        guard code == 0 else { throw SubprocessFailure(step, code) }
    }
}

/// A NULL-terminated array of C strings, freed by `free()`.
private struct CStringArray {
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    init(_ strings: [String]) {
        pointers = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() { pointers[index] = strdup(string) }
        pointers[strings.count] = nil
    }

    func free() {
        var index = 0
        while let string = pointers[index] {
            Glibc.free(string)
            index += 1
        }
        pointers.deallocate()
    }
}

/// Reaps one child on a thread of its own and tells whoever waits.
private final class ExitWatch: Sendable {
    private struct State {
        var status: Int32?
        var handlers: [@Sendable (Int32) -> Void] = []
    }

    private let state = Mutex(State())

    init(pid: pid_t) {
        Thread.detachNewThread { [self] in
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
            // Exited: the code from bits 8–15; killed: the signal in bits 0–6 (Foundation's terminationStatus).
            let status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
            let handlers = state.withLock { state in
                state.status = status
                defer { state.handlers = [] }
                return state.handlers
            }
            for handler in handlers { handler(status) }
        }
    }

    var status: Int32? { state.withLock { $0.status } }

    func whenExited(_ handler: @escaping @Sendable (Int32) -> Void) {
        let status: Int32? = state.withLock { state in
            if state.status == nil { state.handlers.append(handler) }
            return state.status
        }
        if let status { handler(status) }
    }
}
