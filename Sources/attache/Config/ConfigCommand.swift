import Foundation
import Worker

/// `attache config check|print [--config FILE]`: the configuration a worker would start with.
enum ConfigCommand {
    static let usage = """
    usage: attache config check|print [--config FILE]

    check   validates the configuration exactly as `attache worker` does at start (FILE and ATTACHE_* variables,
            the environment winning); exits 0 when a worker would start with it, 1 with the problem otherwise
    print   shows the effective value of every key, one a line, and where it came from: default, file, or
            environment (naming the variable); credentials (presign.s3.accessKeyId, presign.s3.secretAccessKey,
            messages.apiKey, dashboard.token, and kafka.properties carrying passwords, secrets, tokens, keys or
            SASL settings) are shown as (redacted), and every URL in any other value shows *** for its user info,
            each query value and its fragment. Exits 1 when the file or a variable cannot be read

    options:
      --config FILE   the JSON configuration file
    """

    static let flags = ["config": true]

    static func run(_ arguments: CommandLineArguments) -> Int32 {
        guard arguments.positionals.count == 1, let action = arguments.positionals.first else {
            return Console.usageError("config", "expected check or print")
        }
        let file = arguments.options["config"]
        switch action {
        case "check":
            do {
                _ = try ConfigurationLoader.load(file: file)
                Console.output("configuration ok")
                return 0
            } catch {
                Console.error("config", "\(error)")
                return 1
            }
        case "print":
            do {
                Console.output(ConfigurationReport(try ConfigurationLoader.resolve(file: file)).text)
                return 0
            } catch {
                Console.error("config", "\(error)")
                return 1
            }
        default:
            return Console.usageError("config", "unknown action '\(action)' (check or print)")
        }
    }
}
