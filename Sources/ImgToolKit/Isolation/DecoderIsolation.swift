#if canImport(Glibc)
    import Glibc
#endif

/// Decoding through a child process, so that a crash inside a decoder loaded at run time
/// (libheif, libavcodec) costs one input rather than the whole process: a batch loses one job, and the error
/// names the input and the signal (`x.heic: libheif crashed decoding it (SIGSEGV)`).
///
/// The child is this program started again (``executable`` with ``arguments``, which must make it
/// call ``serveIfRequested(_:)`` first thing): the parent sends the file and the limits on the
/// child's standard input, the child decodes with the library and sends back the description
/// (size, depth, profile, EXIF, XMP) and then each frame's rows, which the parent checks against
/// the limits before allocating anything. The child runs with `SWIFT_BACKTRACE=enable=no` (a
/// crash ends it at once, with no backtracer to wait for), ends itself when the parent dies, and is
/// killed when the decoding task is cancelled or ``timeout`` passes.
///
/// The `imgtool` command installs one at start (``install(_:)``; not when the environment says
/// `IMGTOOL_DECODE_IN_PROCESS=1`); a program using ImgToolKit
/// without installing one decodes in its own process, as before. It costs a process start per
/// input (the child that reads a HEIC's structure decodes it too) and a copy of the pixels
/// through a socket: in a release build on a busy 2-core machine, 40 ms more per small HEIC (the
/// start, and libheif loaded in the child), and 0.13 s more processor time (0.2 s of 3.2 s) for a
/// 12-megapixel one.
public struct DecoderIsolation: Sendable, Hashable {
    /// The program to start: an absolute path, or `/proc/self/exe` for the running program.
    public var executable: String
    /// The arguments after the program's name; they must lead it to ``serveIfRequested(_:)``.
    public var arguments: [String]
    /// Longest a child may take to answer, from its start; it is killed then, and decoding fails
    /// with `corrupt`. Default 300 seconds.
    public var timeout: Duration

    /// Creates an isolation that starts `executable` with `arguments`.
    /// - Parameters:
    ///   - executable: the program to start, which calls ``serveIfRequested(_:)`` at start.
    ///   - arguments: its arguments, by default ``serviceArgument`` alone.
    ///   - timeout: how long one child may take (default 300 seconds).
    public init(executable: String, arguments: [String] = [serviceArgument], timeout: Duration = .seconds(300)) {
        self.executable = executable
        self.arguments = arguments
        self.timeout = timeout
    }

    /// The argument that makes ``serveIfRequested(_:)`` serve: `--imgtool-decoder-service`.
    public static let serviceArgument = "--imgtool-decoder-service"

    /// The running program started again: `/proc/self/exe` with ``serviceArgument``.
    public static let currentProgram = DecoderIsolation(executable: "/proc/self/exe")

    private static let installed = Locked<DecoderIsolation?>(nil)

    /// The isolation the decoders that load libraries at run time use, or `nil` (the default:
    /// they decode in this process).
    public static var current: DecoderIsolation? { installed.withLock { $0 } }

    /// Makes the decoders that load libraries at run time (HEIF, video) decode in child processes
    /// started as `isolation` says, or in this process again with `nil`.
    public static func install(_ isolation: DecoderIsolation?) {
        installed.withLock { $0 = isolation }
    }

    /// Serves one decoding request and exits when `arguments` (the program's, its name first)
    /// are the child's: the name, then ``serviceArgument``. Returns at once otherwise. Call it
    /// before anything else in `main`.
    public static func serveIfRequested(_ arguments: [String]) {
        guard arguments.count == 2, arguments[1] == serviceArgument else { return }
        IsolatedDecoderService.serve()
    }
}
