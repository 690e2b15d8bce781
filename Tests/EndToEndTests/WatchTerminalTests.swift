import Foundation
import TestSupport
import Testing

/// `submit --watch` on a real terminal: tmux gives it one of a known size, and its screen is read back.
@Suite(.serialized, .timeLimit(.minutes(3))) struct WatchTerminalTests {
    /// Runs tmux on a server of its own; its output. `Subprocess.run` hands it a file, not a pipe: a tmux client
    /// passes its standard output on to the server, which would keep a pipe open long after the client exited.
    @discardableResult
    private static func tmux(_ socket: String, _ arguments: [String]) async throws -> String {
        try await Subprocess.run("/usr/bin/tmux", ["-L", socket] + arguments).outputText
    }

    @Test func barsAppearReachAHundredPercentAndEndClean() async throws {
        let environment = try await EndToEndEnvironment.shared.value
        _ = try await CommandLineTests.worker.value
        let run = UUID().uuidString.prefix(8)
        let names = ["tty-\(run)-a.bin", "tty-\(run)-b.jpg"]
        try Data(TestBytes.make(3 << 20)).write(to: environment.sourceRoot.appendingPathComponent(names[0]))
        try Jobs.bytes(magic: Jobs.jpeg, size: 200_000, seed: 9).write(to: environment.sourceRoot.appendingPathComponent(names[1]))
        let status = environment.workspace.appendingPathComponent("tty-\(run).status").path
        let variables = CommandLineTests.kafkaEnvironment(environment).map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        let paths = names.map { environment.sourceRoot.appendingPathComponent($0).path }.joined(separator: " ")
        let command = "env \(variables) \(EndToEndEnvironment.attacheBinary) submit --to user:uid-1 --send none --watch "
            + "--path-root \(environment.sourceRoot.path) \(paths); echo $? > \(status); sleep 60"
        let socket = "attache-test-\(run)"
        try await Self.tmux(socket, ["new-session", "-d", "-s", "watch", "-x", "100", "-y", "30", command])
        // A defer cannot await; stopping a tmux server is quick.
        defer { _ = try? Subprocess.runBlocking("/usr/bin/tmux", ["-L", socket, "kill-server"]) }

        var sawBar = false
        let exit = try await eventually("the watch to end", timeout: .seconds(60)) { () async throws -> String? in
            let screen = try await Self.tmux(socket, ["capture-pane", "-p", "-t", "watch"])
            if screen.contains(names[0]) && screen.contains("%") { sawBar = true }
            return (try? String(contentsOfFile: status, encoding: .utf8)).flatMap { $0.isEmpty ? nil : $0 }
        }
        let final = try await Self.tmux(socket, ["capture-pane", "-p", "-t", "watch"])
        // Uploads on loopback can end between two looks at the pane (the status file may appear on the first): the
        // screen the watch left counts too.
        if final.contains(names[0]) && final.contains("%") { sawBar = true }
        #expect(exit.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(final)")
        #expect(sawBar)
        let screen = try await Self.tmux(socket, ["capture-pane", "-p", "-t", "watch"])
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for name in names {
            let bars = lines.filter { $0.hasPrefix(name) }
            #expect(bars.count == 1, "one bar per file, redrawn in place: \(screen)")
            #expect(bars.first?.contains("[####################] 100%") == true && bars.first?.contains("uploaded") == true, "\(screen)")
        }
        #expect(lines.contains { $0.contains("drained: 2 uploaded, 0 rejected, 0 failed") }, "\(screen)")
        #expect(lines.allSatisfy { $0.count < 100 }, "no line wraps")
        #expect(!screen.contains("\u{1B}") && !screen.contains("{\"specversion\""), "bars, not JSON, on a terminal")
    }
}
