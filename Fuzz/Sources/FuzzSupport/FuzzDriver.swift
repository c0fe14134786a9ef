#if canImport(Glibc)
    import Glibc
#endif

/// Runs a fuzz target under libFuzzer: every fuzz executable's `main` is one call to ``run(_:)``.
///
/// SwiftPM names an executable's entry point `<Target>_main` and makes it the program's `main`,
/// so libFuzzer's own `main` is not used: ``run(_:)`` hands the command line to libFuzzer's
/// `LLVMFuzzerRunDriver`, which calls `LLVMFuzzerTestOneInput` (below) with each input, and that
/// calls the body given to ``run(_:)``.
public enum FuzzDriver {
    /// The target's body, set once by ``run(_:)`` before libFuzzer starts and only read after.
    nonisolated(unsafe) static var body: (([UInt8]) -> Void)?

    /// Runs libFuzzer with the process's arguments, calling `body` with each input, and exits
    /// with libFuzzer's status. Every outcome of `body` but a crash, a hang or a leak is fine.
    public static func run(_ body: @escaping ([UInt8]) -> Void) -> Never {
        Self.body = body
        var count = CommandLine.argc
        var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(runFuzzerDriver(&count, &arguments, testOneInput))
    }
}

/// libFuzzer's entry point for one input.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let body = FuzzDriver.body else { fatalError("LLVMFuzzerTestOneInput called before FuzzDriver.run") }
    body(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

/// libFuzzer's driver (`LLVMFuzzerRunDriver` in `FuzzerInterface.h`), for programs with their own `main`.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt
