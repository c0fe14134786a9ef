import ArgumentParser
import CMallocTuning
import ImgToolKit

#if canImport(Glibc)
    import Glibc
#endif

/// The `imgtool` command: decodes, plays and composites PNG, APNG and GIF images.
@main
struct ImgTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imgtool",
        abstract: "Decode, play, composite and convert images (imgtool formats lists which).",
        discussion: """
            Exit status: 0 on success, 1 when an input is bad or an operation failed (the error \
            names the input), 64 for a usage error.
            """,
        version: "0.1.0",
        subcommands: [
            AnimateCommand.self, MergeCommand.self, ConvertCommand.self, ResizeCommand.self, InfoCommand.self,
            FramesCommand.self, FormatsCommand.self, BatchCommand.self,
        ]
    )

    /// Parses as argument-parser's `main` does, with ``parseChecked(_:)`` naming unknown commands
    /// and options; a usage error found while running (an animation written as JPEG) shows the
    /// usage of the command that found it rather than the root's. Then fails when a write to
    /// standard output failed (a full disk, `/dev/full`): exit 1 with one line saying so, where
    /// the command would have reported success. SIGPIPE is ignored: a reader that went away
    /// (`EPIPE`, as `| head` does) ends the process quietly with status 141, as a shell sees
    /// SIGPIPE's, once the outputs not yet committed are taken back.
    static func main() async {
        // Started again to decode one HEIC in a process of its own: serve that and exit.
        DecoderIsolation.serveIfRequested(CommandLine.arguments)
        endCrashesAtOnce()
        // A crash in libheif or libavcodec costs one input, not the run; IMGTOOL_DECODE_IN_PROCESS=1 turns it off.
        if getenv("IMGTOOL_DECODE_IN_PROCESS").map({ String(cString: $0) }) != "1" {
            DecoderIsolation.install(.currentProgram)
        }
        // A closed pipe is an error to handle (EPIPE), not a death: see Console.exitIfReaderGone.
        signal(SIGPIPE, SIG_IGN)
        keepFreedMemoryForReuse()
        let arguments = Array(CommandLine.arguments.dropFirst())
        var command: any ParsableCommand
        do {
            command = try parseChecked(arguments)
        } catch let unknown as UsageSuggestions.UnknownName {
            UsageSuggestions.exit(message: unknown.message, command: unknown.command)
        } catch {
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ValidationError {
            exitForOutputFailure()
            UsageSuggestions.exit(message: error.message, command: type(of: command))
        } catch {
            exitForOutputFailure()
            exit(withError: error)
        }
        exitForOutputFailure()
    }

    /// Has glibc's malloc keep the memory a frame freed for the next frame rather than give it
    /// back to the kernel and fault it in again: blocks under 16 MiB come from the heap (not
    /// a mapping of their own each time), and up to 64 MiB free at the heap's top stay there.
    /// Encoders allocate and free the same large buffers for every frame (libwebp some 2,000
    /// pages a frame of 640x360): left to its defaults, malloc maps and unmaps them each time,
    /// and a join of 100 such stills to a lossless WebP spent 0.6 s of its 6.5 s of CPU in
    /// page faults (0.2 s with these settings; peak memory alike).
    private static func keepFreedMemoryForReuse() {
        _ = cmalloc_tune(16 << 20, 64 << 20)
    }

    /// A crash ends the process at once, holding nothing open, unless `SWIFT_BACKTRACE` asks for
    /// the Swift runtime's backtracer. The runtime (dynamically linked: debug builds) handles
    /// SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP and SIGQUIT by starting `swift-backtrace`,
    /// which inherits our standard output and error and spent 2 s on a trace; after two threads
    /// crashed at once it stayed blocked in 2 of 16 runs, and a caller reading our stderr to its
    /// end waited with it. It reads `SWIFT_BACKTRACE` before `main`, so setting the variable here
    /// would be too late: the default actions are put back instead. (The static release binary
    /// finds no `swift-backtrace` and crashes at once anyway.) Decoder children run with
    /// `SWIFT_BACKTRACE=enable=no` (``DecoderIsolation``).
    private static func endCrashesAtOnce() {
        guard getenv("SWIFT_BACKTRACE") == nil else { return }
        for crash in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGQUIT] {
            signal(crash, SIG_DFL)
        }
    }

    /// Exits when standard output failed (see ``main()``); returns otherwise. `EPIPE` never gets
    /// here: ``Console/recordOutputFailure(_:)`` ends the process at once for it.
    private static func exitForOutputFailure() {
        let failure = standardOutputError.load(ordering: .relaxed)
        guard failure != 0 else { return }
        Console.error("error: standard output: writing failed (\(String(cString: strerror(failure))))")
        Glibc.exit(1)
    }

    /// `parseAsRoot(arguments)`; when that fails, ``UsageSuggestions/check(_:)`` first names an
    /// unknown command or option (and the nearest known one), which argument-parser may have
    /// reported as something else. A batch parses its jobs with it too.
    /// - Throws: ``UsageSuggestions/UnknownName``, or argument-parser's errors.
    static func parseChecked(_ arguments: [String]) throws -> any ParsableCommand {
        do {
            return try parseAsRoot(arguments)
        } catch {
            // Only on the way out: a command line that parses pays nothing for the check.
            try UsageSuggestions.check(arguments)
            throw error
        }
    }
}
