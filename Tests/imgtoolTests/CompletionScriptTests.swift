import Foundation
import TestSupport
import Testing

/// `imgtool --generate-completion-script`: each shell's script is generated and names every command.
@Suite("imgtool shell completions", .timeLimit(.minutes(5)))
struct CompletionScriptTests {
    static let commands = ["animate", "merge", "convert", "resize", "info", "frames", "formats", "batch"]

    @Test("bash, zsh and fish scripts name every command and the options of one", arguments: ["bash", "zsh", "fish"])
    func script(shell: String) throws {
        let run = try CLIRunner.run(["--generate-completion-script", shell])
        #expect(run.status == 0, "\(run.stderr)")
        for command in Self.commands {
            #expect(run.stdout.contains(command), "\(shell) script without \(command)")
        }
        // Options of a command, with the spellings this version documents (not the hidden old ones).
        #expect(run.stdout.contains("keep-going") && run.stdout.contains("overlay-width"))
        #expect(!run.stdout.contains("--range") && !run.stdout.contains("'--range'"))
    }

    @Test("The bash script is valid bash and completes a command from its first letters")
    func bashCompletes() throws {
        let folder = try makeTemporaryFolder("completion")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = try CLIRunner.run(["--generate-completion-script", "bash"]).stdout
        try Data(script.utf8).write(to: URL(fileURLWithPath: folder + "/imgtool.bash"))
        let completed = try CLIRunner.run(
            program: "/bin/bash",
            [
                "-c",
                """
                source imgtool.bash
                COMP_WORDS=(imgtool con); COMP_CWORD=1; COMP_LINE="imgtool con"; COMP_POINT=${#COMP_LINE}
                _imgtool imgtool con imgtool
                echo "${COMPREPLY[@]}"
                """,
            ], in: folder)
        #expect(completed.status == 0, "\(completed.stderr)")
        #expect(completed.stdout == "convert\n")
    }
}
