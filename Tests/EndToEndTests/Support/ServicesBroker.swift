import Foundation
import TestSupport

/// `attache dev-broker --services` as the README's quick start runs it: the mock cluster, and beside it the
/// presign endpoint, object store and message API, whose settings it prints after the bootstrap line.
struct ServicesBroker {
    let process: ChildProcess
    /// The `ATTACHE_*` settings it printed, by variable.
    let settings: [String: String]

    /// Starts one in `workspace` and waits for its four settings lines.
    static func start(name: String, in workspace: URL) async throws -> ServicesBroker {
        let process = try ChildProcess(name: name, executable: EndToEndEnvironment.attacheBinary,
                                       arguments: ["dev-broker", "--services"], directory: workspace)
        do {
            let settings = try await eventually("the services' settings", timeout: .seconds(20)) { () -> [String: String]? in
                let lines = process.standardOutput.split(separator: "\n").dropFirst().compactMap { line -> (String, String)? in
                    guard let equals = line.firstIndex(of: "=") else { return nil }
                    return (String(line[..<equals]), String(line[line.index(after: equals)...]))
                }
                return lines.count == 4 ? Dictionary(uniqueKeysWithValues: lines) : nil
            }
            return ServicesBroker(process: process, settings: settings)
        } catch {
            process.signal(SIGTERM)
            throw error
        }
    }
}
