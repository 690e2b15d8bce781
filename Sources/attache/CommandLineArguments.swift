/// A parsed command line: `attache <command> [argument | --flag [value]]...`.
struct CommandLineArguments {
    var command: String?
    /// The arguments that are not flags, in order (a subcommand, batch ids, files).
    var positionals: [String] = []
    var options: [String: String] = [:]
    var wantsHelp = false

    /// Why a command line cannot be run; printed with the usage, exit status 2.
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// Parses flags against the ones a command accepts (name → takes a value). `--` ends the flags: what follows is
    /// positional even when it starts with a dash.
    static func parse(_ arguments: [String], accepted: (String) -> [String: Bool]?) throws -> CommandLineArguments {
        var parsed = CommandLineArguments()
        var rest = arguments[...]
        if let first = rest.first, !first.hasPrefix("-") {
            parsed.command = first
            rest = rest.dropFirst()
        }
        let flags = parsed.command.flatMap(accepted) ?? [:]
        while let argument = rest.popFirst() {
            if argument == "--" {
                parsed.positionals += rest
                break
            }
            if argument == "--help" || argument == "-h" {
                parsed.wantsHelp = true
                continue
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                parsed.positionals.append(argument)
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard name.hasPrefix("--"), let takesValue = flags[String(name.dropFirst(2))] else {
                throw UsageError(description: "unknown option '\(name)'")
            }
            let key = String(name.dropFirst(2))
            if takesValue {
                guard let value = inlineValue ?? rest.popFirst() else { throw UsageError(description: "\(name) needs a value") }
                parsed.options[key] = value
            } else {
                guard inlineValue == nil else { throw UsageError(description: "\(name) takes no value") }
                parsed.options[key] = "true"
            }
        }
        return parsed
    }
}
