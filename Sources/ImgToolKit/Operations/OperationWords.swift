extension ImageOperation {
    /// Every operation word ``parse(words:background:suggesting:)`` knows, for suggestions
    /// (`--rotat`: did you mean `--rotate`?).
    public static let words: Set<String> = Set([
        "--crop", "--resize", "--rotate", "--flip", "--flop", "--trim", "--pad", "--blur", "--sharpen", "--grayscale",
        "--greyscale", "--overlay", "--gravity", "--offset", "--opacity", "--overlay-width", "--overlay-height",
        "--overlay-size", "--tile", "--speed",
        "--reverse", "--frames", "--time", "--fps", "--filter", "--linear", "--boomerang", "--sheet", "--sheet-json",
    ]).union(TextOperation.words)

    /// The placement words an `--overlay` and a `--text` both take.
    static let overlayWords: Set<String> = ["--gravity", "--offset", "--opacity"]

    /// Parses the operation words of `imgtool convert IN OUT [OPERATION...]` (and of a `batch` job
    /// line's `convert`), in the order written, into the list ``FrameSource/applying(_:context:)``
    /// applies.
    ///
    /// Each operation is a flag with its value (`--crop 640x360+0+0`, `--rotate 90`, `--flip`),
    /// or `--name=value` in one word; an `--overlay FILE` is followed by its own placement
    /// (`--gravity`, `--offset X,Y`, `--opacity`, `--overlay-width W|P%`, `--overlay-height H|P%`,
    /// `--tile`), which applies to it alone; a `--text STRING` by its own options (``TextOperation/words``). `--filter` and `--linear` set how every `--resize`
    /// filters, wherever they are written. Each value is parsed by its operation's own parser
    /// (``CropOperation/init(parsing:)``, ``TimingOperation/speed(parsing:)`` ...). Nothing is
    /// loaded or decoded here: an overlay is only named.
    ///
    /// - Parameters:
    ///   - words: the words, as typed.
    ///   - background: what `--rotate` and `--pad` fill the uncovered area with; `nil` transparent.
    ///   - suggesting: the known word to suggest for an unknown one (from ``words``), if any.
    /// - Returns: the operations, in the order written.
    /// - Throws: ``ImgToolError`` `invalidArgument` naming the option and the value: a value that
    ///   does not parse, a missing value, a placement before any `--overlay`, or an unknown word.
    public static func parse(
        words: [String], background: RGBAColor? = nil, suggesting: (String) -> String? = { _ in nil }
    ) throws(ImgToolError) -> [ImageOperation] {
        var operations: [ImageOperation] = []
        var filter = "lanczos3"
        var linear = false
        // Flags in `--name=value` form are split; values are the next word otherwise.
        var queue = words.flatMap { word -> [String] in
            guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return [word] }
            return [String(word[..<equals]), String(word[word.index(after: equals)...])]
        }[...]
        func value(for option: String) throws(ImgToolError) -> String {
            guard let next = queue.popFirst() else { throw ImgToolError(.invalidArgument, "\(option) needs a value") }
            return next
        }
        func lastOverlay(_ option: String) throws(ImgToolError) -> OverlayOperation {
            guard case .overlay(let overlay) = operations.last else {
                throw ImgToolError(.invalidArgument, "\(option) places an overlay: write it after --overlay FILE")
            }
            return overlay
        }
        while let word = queue.popFirst() {
            // --text's own options (and --gravity, --offset, --opacity after it).
            if TextOperation.words.contains(word), word != "--text" {
                if case .text(var text) = operations.last {
                    try text.set(word, to: try value(for: word))
                    operations[operations.count - 1] = .text(text)
                    continue
                }
                if !ImageOperation.overlayWords.contains(word) {
                    throw ImgToolError(.invalidArgument, "\(word) sets a caption: write it after --text STRING")
                }
            }
            switch word {
            case "--text": operations.append(.text(TextOperation(text: try value(for: word))))
            case "--crop": operations.append(.crop(try CropOperation(parsing: try value(for: word))))
            case "--resize":
                operations.append(
                    .resize(try ResizeOperation(size: try value(for: word), filter: filter, linear: linear)))
            case "--rotate":
                operations.append(
                    .rotate(try RotateOperation(parsing: try value(for: word), background: background)))
            case "--flip": operations.append(.mirror(MirrorOperation(.flip)))
            case "--flop": operations.append(.mirror(MirrorOperation(.flop)))
            case "--trim": operations.append(.trim(TrimOperation()))
            case "--pad":
                operations.append(.pad(try PadOperation(parsing: try value(for: word), color: background)))
            case "--blur":
                operations.append(
                    .filter(.blur(sigma: try FilterOperation.sigma(parsing: try value(for: word), option: word))))
            case "--sharpen":
                operations.append(
                    .filter(.sharpen(sigma: try FilterOperation.sigma(parsing: try value(for: word), option: word))))
            case "--grayscale", "--greyscale": operations.append(.filter(.grayscale))
            case "--overlay": operations.append(.overlay(OverlayOperation(input: try value(for: word))))
            case "--gravity":
                var overlay = try lastOverlay(word)
                let name = try value(for: word)
                guard let gravity = Gravity(rawValue: name.lowercased()) else {
                    throw ImgToolError(
                        .invalidArgument,
                        "--gravity \(name): expected one of \(Gravity.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                overlay.gravity = gravity
                operations[operations.count - 1] = .overlay(overlay)
            case "--offset":
                var overlay = try lastOverlay(word)
                let text = try value(for: word)
                let parts = text.split(separator: ",").compactMap { Int($0) }
                guard parts.count == 2 else {
                    throw ImgToolError(.invalidArgument, "--offset \(text): expected X,Y in pixels")
                }
                overlay.offsetX = parts[0]
                overlay.offsetY = parts[1]
                operations[operations.count - 1] = .overlay(overlay)
            case "--opacity":
                var overlay = try lastOverlay(word)
                let text = try value(for: word)
                guard let opacity = Double(text), (0...1).contains(opacity) else {
                    throw ImgToolError(.invalidArgument, "--opacity \(text): expected a number from 0 to 1")
                }
                overlay.opacity = opacity
                operations[operations.count - 1] = .overlay(overlay)
            case "--overlay-width", "--overlay-height", "--overlay-size":
                // --overlay-size (a percentage of the width) is the old name of --overlay-width,
                // kept for scripts; both take pixels or a percentage, as merge's does.
                var overlay = try lastOverlay(word)
                let length = try ResizeSpec.Length(parsing: try value(for: word), option: word)
                if word == "--overlay-height" {
                    overlay.height = length
                } else {
                    overlay.width = length
                    overlay.widthPercent = nil
                }
                operations[operations.count - 1] = .overlay(overlay)
            case "--tile":
                var overlay = try lastOverlay(word)
                overlay.tiles = true
                operations[operations.count - 1] = .overlay(overlay)
            case "--speed": operations.append(.timing(try TimingOperation.speed(parsing: try value(for: word))))
            case "--reverse": operations.append(.timing(.reverse))
            case "--boomerang": operations.append(.timing(.boomerang))
            case "--sheet":
                operations.append(
                    .sheet(SheetOperation(grid: try GridLayout(parsing: try value(for: word), option: word))))
            case "--sheet-json":
                guard case .sheet(var sheet) = operations.last else {
                    throw ImgToolError(
                        .invalidArgument, "--sheet-json describes a sprite sheet: write it after --sheet")
                }
                sheet.descriptionFile = try value(for: word)
                operations[operations.count - 1] = .sheet(sheet)
            case "--frames": operations.append(.timing(try TimingOperation.frames(parsing: try value(for: word))))
            case "--time": operations.append(.timing(try TimingOperation.time(parsing: try value(for: word))))
            case "--fps": operations.append(.timing(try TimingOperation.fps(parsing: try value(for: word))))
            case "--filter":
                let name = try value(for: word)
                _ = try ResampleFilter(named: name)
                filter = name
            case "--linear": linear = true
            default:
                let nearest = suggesting(word).map { "; did you mean \($0)?" }
                throw ImgToolError(
                    .invalidArgument,
                    "unknown option or operation \"\(word)\"\(nearest ?? " (see imgtool convert --help)")")
            }
        }
        // --filter and --linear apply to every resize, wherever they were written.
        return operations.map { operation in
            guard case .resize(var resize) = operation else { return operation }
            resize.filter = (try? ResampleFilter(named: filter)) ?? .lanczos3
            resize.linear = linear
            return .resize(resize)
        }
    }
}
