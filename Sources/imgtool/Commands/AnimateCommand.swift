import ArgumentParser
import Foundation
import ImgToolKit

/// `imgtool animate FILE|URL`: plays an animation in the terminal, or prints its timing as JSON.
struct AnimateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "animate",
        abstract: "Play an animation (or show a still image) in the terminal, or print its frame timing.",
        discussion: """
            On a terminal, frames are drawn in place on the alternate screen with 24-bit half-block \
            cells (or the kitty graphics protocol or sixel with --protocol), scaled to fit; q or \
            Ctrl-C quits and the terminal is restored on every exit. A still image stays on show \
            until q (when standard input is the terminal).

            When standard output is not a terminal, or with --json, one JSON line is printed per \
            frame shown: index, loop (the play, from 0), t_ms (since frame 0), delay_ms \
            (effective), lateness_ms, dropped (frames dropped just before this one). An animation \
            that loops forever then plays once unless --loops is given. --dry-run prints the \
            whole schedule at once without waiting.

            Delay policies: browser (default; 10 ms or less plays as 100 ms), imageio (GIF at \
            least 100 ms, APNG at least 50 ms), raw, min=MS.

            Exit status: 0 when the animation ended or was quit with q, 1 for a bad input, \
            128+N after signal N (130 for Ctrl-C), 64 for a usage error.
            """
    )

    @Argument(help: "The image: a path, a file:// or http(s):// URL, or - for standard input.")
    var input: String

    @Option(help: "How many times to play; 0 plays forever. Default: as the file says.")
    var loops: Int?

    @Option(name: .customLong("start-index"), help: "The first frame shown (later plays start at 0).")
    var startIndex = 0

    @Option(help: "A delay in seconds for every frame, replacing the file's (no delay policy applies).")
    var delay: Double?

    @Option(help: "Playback speed, 0.001 to 1000: 2 plays twice as fast.")
    var speed: Double = 1

    @Option(name: .customLong("delay-policy"), help: "How short delays are clamped: browser, imageio, raw, min=MS.")
    var delayPolicy = DelayPolicyArgument(policy: .browser)

    @Option(help: "Frames ready after their time: drop them to keep time, or wait and show them late.")
    var late: LateArgument = .drop

    @Flag(help: "Print one JSON line per frame instead of drawing.")
    var json = false

    @Flag(name: .customLong("dry-run"), help: "Print the schedule at once, without decoding or waiting.")
    var dryRun = false

    @Flag(help: "End with timing statistics on stderr (fps, late, dropped, p50/p99 lateness).")
    var stats = false

    @Option(help: "Width of the picture in terminal cells (default: the terminal's).")
    var width: Int?

    @Option(help: "Height of the picture in terminal cells (default: the terminal's, less a status line).")
    var height: Int?

    @Option(name: .customLong("protocol"), help: "How to draw: auto, halfblock, kitty, sixel.")
    var graphics: GraphicsProtocol = .auto

    @OptionGroup var reading: InputOptions

    func validate() throws {
        if let loops, loops < 0 { throw ValidationError("--loops must be 0 (forever) or more, not \(loops)") }
        guard startIndex >= 0 else { throw ValidationError("--start-index must not be negative") }
        if let delay, !(delay.isFinite && delay >= 0 && delay <= 86_400) {
            throw ValidationError("--delay must be 0 to 86400 seconds, not \(delay)")
        }
        guard speed.isFinite, speed >= 0.001, speed <= 1000 else {
            throw ValidationError("--speed \(speed): expected a factor from 0.001 to 1000 (2 plays twice as fast)")
        }
        if let width, width <= 0 { throw ValidationError("--width must be positive") }
        if let height, height <= 0 { throw ValidationError("--height must be positive") }
    }

    func run() async throws {
        let commandStart = ContinuousClock.now
        let source: any FrameSource
        do {
            source = try await reading.open(input)
        } catch {
            Console.error("error: \(error.commandLineDescription)")
            throw ExitCode.failure
        }
        for warning in source.info.warnings { Console.error("warning: \(input): \(warning)") }
        let interactive = Terminal.outputIsTerminal && !json && !dryRun
        var options = AnimationOptions(
            startIndex: startIndex, delayTime: delay.map { .microseconds(Int64(($0 * 1_000_000).rounded())) },
            plays: loops, delayPolicy: delayPolicy.policy, latePolicy: late.policy, speed: speed,
            depth: .eight, limits: reading.limits)
        if loops == nil && !interactive && !dryRun && source.info.plays == 0 && source.info.isAnimated {
            options.plays = 1
            Console.error("note: \(input) loops forever; playing it once (use --loops 0 to loop)")
        }
        let plan: AnimationPlan
        do {
            plan = try AnimationPlan(info: source.info, options: options)
        } catch {
            Console.error("error: \(error.naming(input).commandLineDescription)")
            throw ExitCode.failure
        }
        if dryRun {
            printSchedule(plan)
            return
        }
        let outcome: PlaybackOutcome
        if interactive {
            outcome = await Self.playInTerminal(
                source: source, options: options, graphics: graphics.resolved(), width: width, height: height,
                commandStart: commandStart)
        } else {
            outcome = await JSONPlayer.run(source: source, options: options, commandStart: commandStart)
        }
        if stats, let report = outcome.report {
            Console.error(outcome.stats.summary(report: report))
        }
        if let error = outcome.error {
            Console.error("error: \(error.naming(input).commandLineDescription)")
            throw ExitCode.failure
        }
        if let signal = outcome.signal { throw ExitCode(128 + signal) }
    }

    @MainActor
    static func playInTerminal(
        source: any FrameSource, options: AnimationOptions, graphics: GraphicsProtocol, width: Int?, height: Int?,
        commandStart: ContinuousClock.Instant
    ) async -> PlaybackOutcome {
        // Terminals show sRGB: a tagged image is converted (nothing is done for an sRGB one).
        let player = TerminalPlayer(
            source: source.convertedToSRGB(), options: options, graphics: graphics, width: width, height: height,
            commandStart: commandStart)
        return await player.run()
    }

    /// `--dry-run`: the timeline of every play (one play when it loops forever).
    func printSchedule(_ plan: AnimationPlan) {
        if plan.isForever { Console.error("note: \(input) loops forever; the schedule shows one play") }
        for entry in plan.timeline() {
            // Once standard output has failed, the rest would be lost too (see ImgTool.main).
            if standardOutputError.load(ordering: .relaxed) != 0 { break }
            let frame = entry.frame
            if json {
                let line: JSONValue = [
                    "index": .int(frame.index), "loop": .int(entry.play),
                    "start_ms": .milliseconds(entry.start.milliseconds),
                    "duration_ms": .milliseconds(entry.duration.milliseconds),
                    "raw_delay_ms": .milliseconds(frame.delay.milliseconds),
                    "delay_ms": .milliseconds(entry.duration.milliseconds),
                    "region": [
                        "x": .int(frame.region.x), "y": .int(frame.region.y), "width": .int(frame.region.width),
                        "height": .int(frame.region.height),
                    ],
                    "disposal": .string(frame.disposal.rawValue), "blend": .string(frame.blend.rawValue),
                ]
                Console.out(line.serialized)
            } else {
                Console.out(
                    "frame \(frame.index) loop \(entry.play): at \(PlaybackStats.format(entry.start.milliseconds)) ms for "
                        + "\(PlaybackStats.format(entry.duration.milliseconds)) ms (stored \(PlaybackStats.format(frame.delay.milliseconds)) ms), "
                        + "\(frame.region), dispose \(frame.disposal.rawValue), blend \(frame.blend.rawValue)")
            }
        }
    }
}

/// How a playback ended, for the command's exit status and `--stats`.
struct PlaybackOutcome {
    var report: AnimationReport?
    var stats: PlaybackStats
    var error: ImgToolError?
    var signal: Int32?
}

/// `--delay-policy`: `browser`, `imageio`, `raw` or `min=MS`.
struct DelayPolicyArgument: ExpressibleByArgument {
    var policy: DelayPolicy

    init(policy: DelayPolicy) { self.policy = policy }

    init?(argument: String) {
        guard let policy = DelayPolicy(parsing: argument) else { return nil }
        self.policy = policy
    }

    var defaultValueDescription: String { policy.description }
    static var allValueStrings: [String] { ["browser", "imageio", "raw", "min=MS"] }
}

/// `--late`: `drop` or `wait`.
enum LateArgument: String, ExpressibleByArgument, CaseIterable {
    case drop
    case wait

    var policy: LatePolicy {
        switch self {
        case .drop: .drop
        case .wait: .wait
        }
    }
}

/// `--protocol`: how frames are drawn on a terminal.
enum GraphicsProtocol: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// kitty graphics when the terminal says it is kitty (or Ghostty, WezTerm), else half-block.
    case auto
    /// 24-bit colour half-block cells: works on any terminal with true colour.
    case halfblock
    /// The kitty graphics protocol.
    case kitty
    /// Sixel graphics, colours reduced to a 6x6x6 cube.
    case sixel

    /// `auto` resolved from the environment (no terminal query, so it never blocks).
    func resolved(environment: [String: String] = ProcessInfo.processInfo.environment) -> GraphicsProtocol {
        guard self == .auto else { return self }
        if environment["KITTY_WINDOW_ID"] != nil || environment["TERM"] == "xterm-kitty" { return .kitty }
        if let program = environment["TERM_PROGRAM"], ["ghostty", "WezTerm"].contains(program),
            environment["TMUX"] == nil
        {
            return .kitty
        }
        return .halfblock
    }
}
