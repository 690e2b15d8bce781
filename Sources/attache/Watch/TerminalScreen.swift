import Foundation
import Synchronization

/// The live part of `attache watch` on a terminal: the progress bars, redrawn in place at most four times a second,
/// with lines (messages, drains) printed above them as they come.
///
/// Draws with the cursor moving up over the bars drawn last and clearing them; every line is kept shorter than the
/// terminal so none wraps (a wrapped line would throw the count off). Called from the watch loop and from its own
/// redraw task; the state lives behind a mutex and every write happens under it, so output never interleaves.
final class TerminalScreen: Sendable {
    private struct State {
        var bars: [String] = []
        var drawnLines = 0
        var dirty = false
        var lastDraw = ContinuousClock.now - .seconds(1)
    }

    private let state = Mutex(State())
    static let interval = Duration.milliseconds(250)

    /// Whether standard output is a terminal.
    static var isTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// The terminal's width in columns (COLUMNS, or 80, when it cannot be asked).
    static var width: Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 80
    }

    init() {
        FileHandle.standardOutput.write(Data("\u{1B}[?25l".utf8))
    }

    /// New bars: drawn now unless the last drawing was less than ``interval`` ago (the redraw task catches up).
    func update(bars: [String]) {
        state.withLock { state in
            state.bars = bars
            state.dirty = true
            if state.lastDraw.duration(to: .now) >= Self.interval { Self.draw(&state, lines: []) }
        }
    }

    /// Prints `line` above the bars, at once.
    func print(_ line: String) {
        state.withLock { Self.draw(&$0, lines: [line]) }
    }

    /// Draws what changed since the last drawing.
    func redrawIfNeeded() {
        state.withLock { state in
            if state.dirty { Self.draw(&state, lines: []) }
        }
    }

    /// Draws the final bars and shows the cursor again.
    func finish() {
        state.withLock { state in
            Self.draw(&state, lines: [])
            FileHandle.standardOutput.write(Data("\u{1B}[?25h".utf8))
        }
    }

    private static func draw(_ state: inout State, lines: [String]) {
        var output = ""
        if state.drawnLines > 0 { output += "\r\u{1B}[\(state.drawnLines)A" }
        output += "\u{1B}[J"
        for line in lines { output += line + "\n" }
        for bar in state.bars { output += bar + "\n" }
        FileHandle.standardOutput.write(Data(output.utf8))
        state.drawnLines = state.bars.count
        state.dirty = false
        state.lastDraw = .now
    }
}
