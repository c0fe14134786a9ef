import Foundation
import TestSupport
import Testing

/// Whether tmux is installed; the terminal test needs it and is skipped (with this reason) without it.
let tmuxPath = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// Drives tmux on a private server socket, so the test never touches anyone's sessions.
struct Tmux {
    let socket = "imgtool-test-\(UUID().uuidString.prefix(8))"
    let session = "animate"

    /// Runs `tmux arguments...` through `/bin/sh` (`system`, which waits for the client with
    /// `waitpid`; the daemonised server keeps no pipe of ours open) and returns its stdout.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        guard let tmuxPath else { return "" }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("\(socket)-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: output) }
        let quoted = ([tmuxPath, "-L", socket, "-f", "/dev/null"] + arguments).map(Self.quote).joined(separator: " ")
        let status = system("\(quoted) >\(Self.quote(output.path)) 2>/dev/null </dev/null")
        guard status != -1 else { throw CocoaError(.fileWriteUnknown) }
        return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }

    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    func screen(escapes: Bool = false) throws -> String {
        try run(["capture-pane", "-p", "-t", session] + (escapes ? ["-e"] : []))
    }

    /// `#{alternate_on} #{cursor_flag}`: "1 0" while playing, "0 1" once restored.
    func modes() throws -> String {
        try run(["display-message", "-p", "-t", session, "#{alternate_on} #{cursor_flag}"]).trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    /// Waits (up to `waitUntil`'s timeout) until `condition` holds on the screen.
    func waitFor(_ what: String, escapes: Bool = false, _ condition: (String) -> Bool) async throws {
        if try await waitUntil(interval: .milliseconds(50), { condition(try screen(escapes: escapes)) }) { return }
        Issue.record("timed out waiting for \(what); screen:\n\(try screen())")
    }
}

@Suite("imgtool animate in a terminal (tmux)", .serialized, .timeLimit(.minutes(5)))
struct AnimateTerminalTests {
    @Test(
        "draws half-block frames on the alternate screen, q quits and the terminal is restored",
        .enabled(if: tmuxPath != nil, "tmux is not installed"))
    func quitWithQ() async throws {
        try await play(quitWith: ["q"], expectedStatus: 0)
    }

    @Test(
        "Ctrl-C quits with status 130 and the terminal is restored",
        .enabled(if: tmuxPath != nil, "tmux is not installed"))
    func quitWithCtrlC() async throws {
        try await play(quitWith: ["C-c"], expectedStatus: 130)
    }

    @Test(
        "a resize lays the picture out again for the new size",
        .enabled(if: tmuxPath != nil, "tmux is not installed"))
    func resize() async throws {
        try await play(quitWith: ["q"], expectedStatus: 0) { tmux in
            // 40x20 pixels in 60x20 cells: 60x30 pixels, 15 rows of half blocks, status on row 16.
            #expect(try Self.statusRow(tmux.screen()) == 16)
            // When the terminal shrinks to 30x20: 30x16 pixels, 8 rows, status on row 9
            try tmux.run(["resize-window", "-t", tmux.session, "-x", "30", "-y", "20"])
            try await tmux.waitFor("the status line on row 9") { Self.statusRow($0) == 9 }
            // and the status line is cut to the width, not wrapped onto the next row
            let screen = try tmux.screen()
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines[8].hasPrefix("frame 1/1  loop "), "\(screen)")
            #expect(lines[9...].allSatisfy { $0.isEmpty }, "\(screen)")
        }
    }

    @Test(
        "a still stays on screen until q, laid out again on a resize",
        .enabled(if: tmuxPath != nil, "tmux is not installed"))
    func stillIsHeld() async throws {
        try await play(options: [], quitWith: ["q"], expectedStatus: 0) { tmux in
            // Given a still played as the file says (one play, no --loops), when time passes
            try await Task.sleep(for: .seconds(1))
            // then it is still on show (before, the player ended after its one frame)
            #expect(try Self.statusRow(tmux.screen()) == 16)
            #expect(try tmux.modes() == "1 0")
            #expect(try !tmux.screen().contains("EXIT="))
            // and a resize draws it again at the new size: 30x16 pixels, 8 rows, status on row 9
            try tmux.run(["resize-window", "-t", tmux.session, "-x", "30", "-y", "20"])
            try await tmux.waitFor("the status line on row 9") { Self.statusRow($0) == 9 }
            try await tmux.waitFor("the picture drawn again", escapes: true) {
                $0.contains("48;2;0;0;255") && $0.contains("48;2;200;100;50")
            }
        }
    }

    /// The 1-based row of the status line, if it is on screen.
    static func statusRow(_ screen: String) -> Int? {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.firstIndex { $0.hasPrefix("frame 1/1") }.map { $0 + 1 }
    }

    func play(
        options: [String] = ["--loops", "0"], quitWith keys: [String], expectedStatus: Int,
        whilePlaying: (Tmux) async throws -> Void = { _ in }
    ) async throws {
        let path = try temporaryPNG(width: 40, height: 20, rgba: [200, 100, 50, 255], left: [0, 0, 255, 255])
        let tmux = Tmux()
        try tmux.run(["new-session", "-d", "-s", tmux.session, "-x", "60", "-y", "20", "env PS1='$ ' sh"])
        defer { _ = try? tmux.run(["kill-server"]) }
        // Type only once the shell has printed its prompt: keys typed earlier are echoed by the
        // terminal before the prompt, which then lands on the line where the output goes.
        // (capture-pane drops trailing spaces: the prompt "$ " reads as "$")
        try await tmux.waitFor("the shell prompt") { $0.split(separator: "\n").contains { $0.hasPrefix("$") } }
        // The status is printed as EXIT=N; the typed line says EXIT""=$?, so it never matches.
        try tmux.run([
            "send-keys", "-t", tmux.session,
            "\(CLIRunner.executable.path) animate '\(path)' \(options.joined(separator: " ")); echo EXIT\"\"=$?",
            "Enter",
        ])
        // Then the frame is on screen: the status line, and both colours as 24-bit backgrounds
        try await tmux.waitFor("the status line") { $0.contains("frame 1/1") && $0.contains("q quits") }
        let colours = try tmux.screen(escapes: true)
        #expect(colours.contains("48;2;0;0;255"))
        #expect(colours.contains("48;2;200;100;50"))
        #expect(try tmux.modes() == "1 0", "alternate screen on, cursor hidden while playing")
        try await whilePlaying(tmux)
        // When the key is pressed
        try tmux.run(["send-keys", "-t", tmux.session] + keys)
        let exitStatus = { (screen: String) -> Int? in
            guard let match = screen.firstMatch(of: /EXIT=([0-9]+)/) else { return nil }
            return Int(match.1)
        }
        try await tmux.waitFor("the exit status") { exitStatus($0) != nil }
        // Then the terminal is back: main screen, cursor visible, the exit status as expected
        #expect(try exitStatus(tmux.screen()) == expectedStatus)
        #expect(try tmux.modes() == "0 1", "alternate screen left, cursor visible")
        let tty = try tmux.run(["display-message", "-p", "-t", tmux.session, "#{pane_tty}"]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let modes = try CLIRunner.run(program: "/bin/stty", ["-a", "-F", tty]).stdout
        #expect(modes.contains(" icanon") && modes.contains(" echo"), "line mode and echo restored: \(modes)")
    }
}
