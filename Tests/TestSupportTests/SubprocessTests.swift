import Foundation
import Glibc
import TestSupport
import Testing

/// The launcher every suite starts its servers and tools with: what a child inherits, and how its exit is seen.
@Suite(.timeLimit(.minutes(1))) struct SubprocessTests {
    @Test func aChildHoldsOnlyItsStandardDescriptors() async throws {
        // Not close-on-exec, as descriptors libraries open often are: a child holding one would keep a pipe (a
        // watchdog's lifeline) or a listening socket open after the test let go of it.
        let inheritable = open("/dev/null", O_RDONLY)
        defer { close(inheritable) }
        try #require(inheritable > 2)

        // `ls` lists the descriptors of the shell, its parent, which opens none of its own for `-c`.
        let run = try await Subprocess.run("/bin/sh", ["-c", "ls /proc/$$/fd"])

        #expect(run.status == 0)
        #expect(run.outputText.split(separator: "\n") == ["0", "1", "2"])
    }

    @Test func aChildStartsWithNoSignalBlockedOrIgnored() async throws {
        // The spawning thread blocks SIGTERM and the process ignores SIGHUP; neither may reach the child, which
        // could then not be stopped.
        var blocked = sigset_t(), previousMask = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        let previousHangUp = Glibc.signal(SIGHUP, SIG_IGN)
        pthread_sigmask(SIG_BLOCK, &blocked, &previousMask)
        let spawned = Result {
            try Subprocess("/bin/grep", ["-E", "^Sig(Blk|Ign):", "/proc/self/status"], output: .pipe)
        }
        pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        Glibc.signal(SIGHUP, previousHangUp)
        let process = try spawned.get()

        let printed = String(decoding: try #require(process.output).readDataToEndOfFile(), as: UTF8.self)
        let masks = Dictionary(uniqueKeysWithValues: printed.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t")
            return (String(fields[0]), UInt64(fields[1], radix: 16) ?? .max)
        })

        #expect(await process.exitStatus() == 0)
        #expect(masks["SigBlk:"] == 0, "\(printed)")
        // Signals 1–31 only: glibc keeps its internal real-time signals (32, 33) out of anyone's reach.
        #expect(masks["SigIgn:"].map { $0 & 0x7fff_ffff } == 0, "\(printed)")
    }

    @Test func anExitCodeAndAKillingSignalAreTheTerminationStatus() async throws {
        let exited = try Subprocess("/bin/sh", ["-c", "exit 3"])
        let sleeping = try Subprocess("/bin/sleep", ["30"])
        #expect(sleeping.isRunning)

        sleeping.signal(SIGKILL)

        #expect(await exited.exitStatus() == 3)
        #expect(await sleeping.exitStatus() == SIGKILL)
        #expect(!sleeping.isRunning && sleeping.terminationStatus == SIGKILL)
    }

    @Test func inputWrittenToThePipeIsWhatTheChildReadsAndOutputGoesToTheFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cat-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let process = try Subprocess("/bin/cat", input: .pipe, output: .file(file), error: .standardOutput)
        let input = try #require(process.input)

        input.write(Data("one\ntwo\n".utf8))
        try input.close()

        #expect(await process.exitStatus() == 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "one\ntwo\n")
    }

    @Test func runKeepsStandardErrorApartUnlessMerged() async throws {
        let script = "echo out; echo err >&2; exit 4"

        let separate = try await Subprocess.run("/bin/sh", ["-c", script])
        let merged = try await Subprocess.run("/bin/sh", ["-c", script], mergeError: true)

        #expect(separate.status == 4 && separate.outputText == "out\n" && separate.errorText == "err\n")
        #expect(merged.outputText == "out\nerr\n" && merged.errorOutput.isEmpty)
    }

    @Test func aMissingExecutableFailsToStart() {
        #expect(throws: SubprocessFailure.self) { try Subprocess("/nonexistent/attache-tool") }
    }
}
