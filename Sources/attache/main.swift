import Dispatch
import Foundation
import Worker

// A parent may hand us SIGTERM/SIGINT blocked (some launchers and test runners do); the graceful stop needs them.
TerminationSignals.unblock()

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--version" || arguments.first == "-V" {
    guard arguments.count == 1 else {
        FileHandle.standardError.write(Data("attache: --version takes no arguments\n".utf8))
        exit(2)
    }
    print("attache \(AttacheVersion.string)")
    exit(0)
}
let parsed: CommandLineArguments
do {
    parsed = try CommandLineArguments.parse(arguments, accepted: Usage.flags(of:))
} catch {
    FileHandle.standardError.write(Data("attache: \(error)\n\n\(Usage.text(of: arguments.first))\n".utf8))
    exit(2)
}

if parsed.wantsHelp || parsed.command == nil {
    print(Usage.text(of: parsed.command))
    exit(parsed.command == nil && !parsed.wantsHelp ? 2 : 0)
}

if ["worker", "dev-broker", "demo"].contains(parsed.command), let extra = parsed.positionals.first {
    exit(Console.usageError(parsed.command ?? "", "unexpected argument '\(extra)'"))
}

/// The command's exit status. Run from a task that the main thread waits for, not from an async top level: that
/// would hand the main thread to `dispatchMain()`, which ends it with `pthread_exit`, and under valgrind (callgrind
/// counts a small job's instructions for ops/bench) a process whose main thread has ended stops at its next
/// thread's start.
func runCommand(_ parsed: CommandLineArguments) async -> Int32 {
    switch parsed.command {
    case "worker":
        return await WorkerCommand.run(configFile: parsed.options["config"])
    case "dev-broker":
        return await DevBrokerCommand.run(brokers: parsed.options["brokers"], port: parsed.options["port"],
                                           faults: parsed.options["faults"] != nil, services: parsed.options["services"] != nil)
    case "demo":
        return await DemoCommand.run(dashboard: parsed.options["dashboard"] != nil)
    case "config":
        return ConfigCommand.run(parsed)
    case "control":
        return await ControlCommand.run(parsed)
    case "submit":
        return await SubmitCommand.run(parsed)
    case "batch":
        return await BatchCommand.run(parsed)
    case "dlq":
        return await DeadLetterCommand.run(parsed)
    case "storage":
        return await StorageCommand.run(parsed)
    case "watch":
        return await WatchCommand.run(parsed)
    case "dashboard":
        return await DashboardCommand.run(parsed)
    default:
        FileHandle.standardError.write(Data("attache: unknown command '\(parsed.command ?? "")'\n\n\(Usage.general)\n".utf8))
        return 2
    }
}

nonisolated(unsafe) var status: Int32 = 0
let finished = DispatchSemaphore(value: 0)
Task.detached {
    status = await runCommand(parsed)
    finished.signal()
}
finished.wait()
exit(status)
