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

switch parsed.command {
case "worker":
    exit(await WorkerCommand.run(configFile: parsed.options["config"]))
case "dev-broker":
    exit(await DevBrokerCommand.run(brokers: parsed.options["brokers"], port: parsed.options["port"],
                                       faults: parsed.options["faults"] != nil, services: parsed.options["services"] != nil))
case "demo":
    exit(await DemoCommand.run(dashboard: parsed.options["dashboard"] != nil))
case "config":
    exit(ConfigCommand.run(parsed))
case "control":
    exit(await ControlCommand.run(parsed))
case "submit":
    exit(await SubmitCommand.run(parsed))
case "batch":
    exit(await BatchCommand.run(parsed))
case "dlq":
    exit(await DeadLetterCommand.run(parsed))
case "storage":
    exit(await StorageCommand.run(parsed))
case "watch":
    exit(await WatchCommand.run(parsed))
case "dashboard":
    exit(await DashboardCommand.run(parsed))
default:
    FileHandle.standardError.write(Data("attache: unknown command '\(parsed.command ?? "")'\n\n\(Usage.general)\n".utf8))
    exit(2)
}
