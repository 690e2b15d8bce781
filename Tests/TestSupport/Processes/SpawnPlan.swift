import CProcessSpawn
import Foundation
import Glibc

/// The file actions and attributes of one `posix_spawn`, and the pipe ends it made.
struct SpawnPlan {
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
