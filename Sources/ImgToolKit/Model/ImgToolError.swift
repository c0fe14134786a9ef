/// The one error type imgtool's library throws and its command line prints.
///
/// Every error names the input it concerns (a path or URL exactly as the user gave it), says what
/// is wrong in one sentence with the evidence (offsets, chunk names, declared and allowed sizes),
/// and keeps the underlying library's own text (libpng's message, `GifErrorString`, `strerror`)
/// as ``cause``. Its ``description`` is a single line such as
/// `bad.gif: corrupt GIF: frame 3 (40x40 at 90,70) extends past the 100x80 screen`.
public struct ImgToolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is, for programs to branch on.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The file or URL does not exist (ENOENT, HTTP 404).
        case notFound
        /// The input exists but cannot be read (permissions, a directory, an I/O error).
        case unreadable
        /// The bytes are not a format imgtool decodes.
        case unsupportedFormat
        /// The bytes break the format's rules.
        case corrupt
        /// The input ends before the format says it should.
        case truncated
        /// A declared size passes a limit, or memory ran out.
        case tooLarge
        /// Writing the output failed; nothing was left behind.
        case writeFailed
        /// A network fetch failed (timeout, refused, bad status).
        case network
        /// The work was cancelled.
        case cancelled
        /// An argument or option is out of range.
        case invalidArgument
    }

    /// What kind of failure this is.
    public var code: Code
    /// The path or URL as the user gave it, or `nil` when the error concerns no single input.
    public var input: String?
    /// One sentence for people, without the input's name (``description`` adds it).
    public var message: String
    /// The underlying library's or system's own text, kept verbatim.
    public var cause: String?
    /// For a `tooLarge` error, which limit was passed; its value and the declared size are in
    /// the ``message``. A command line adds the option that raises it.
    public var limit: Limit?

    /// The limits a `tooLarge` error can name.
    public enum Limit: String, Sendable, Hashable, CaseIterable {
        /// ``DecodingLimits/maxPixels``: pixels in one canvas or frame.
        case pixels
        /// ``DecodingLimits/maxFrames``: frames in one animation.
        case frames
        /// ``DecodingLimits/maxTotalPixels``: frames times canvas.
        case totalPixels
        /// The byte limit of an input (a file, standard input or a download).
        case bytes
    }

    /// Creates an error.
    /// - Parameters:
    ///   - code: what kind of failure this is.
    ///   - message: one sentence saying what is wrong, with evidence.
    ///   - input: the path or URL as the user gave it.
    ///   - cause: the underlying library's or system's own text.
    ///   - limit: for `tooLarge`, the limit that was passed.
    public init(_ code: Code, _ message: String, input: String? = nil, cause: String? = nil, limit: Limit? = nil) {
        self.code = code
        self.message = message
        self.input = input
        self.cause = cause
        self.limit = limit
    }

    /// One line: `input: message (cause)`.
    public var description: String {
        var line = input.map { "\($0): \(message)" } ?? message
        if let cause, !cause.isEmpty, !message.contains(cause) { line += " (\(cause))" }
        return line
    }

    /// The same error, naming `input` unless it already names one.
    public func naming(_ input: String) -> ImgToolError {
        var copy = self
        if copy.input == nil { copy.input = input }
        return copy
    }
}

extension ImgToolError {
    /// Wraps any error thrown by `body` so that it names `input`; cancellation becomes ``Code/cancelled``.
    static func naming<T>(_ input: String, _ body: () throws -> T) throws(ImgToolError) -> T {
        do {
            return try body()
        } catch let error as ImgToolError {
            throw error.naming(input)
        } catch is CancellationError {
            throw ImgToolError(.cancelled, "cancelled", input: input)
        } catch {
            throw ImgToolError(.unreadable, "\(error)", input: input)
        }
    }
}
