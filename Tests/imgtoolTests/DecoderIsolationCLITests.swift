import Foundation
import ImgToolKit
import TestSupport
import Testing

/// libheif decodes in a child process: a libheif that crashes (a stand-in built here from
/// Tests/Fixtures/crashing-libheif, loaded through IMGTOOL_LIBHEIF) costs one input, with one
/// line naming it and the signal; in a batch only that job fails.
@Suite("Decoder isolation (end to end)", .serialized, .timeLimit(.minutes(5)))
struct DecoderIsolationCLITests {
    static let fixtures = ModernFormatsCLITests.fixtures
    static let heic = fixtures + "/heif/photo.heic"

    /// Builds the crashing libheif with the toolchain's C compiler into `folder`.
    static func crashingLibheif(in folder: String) throws -> String {
        let library = folder + "/libheif-crashing.so"
        let source = fixtures + "/crashing-libheif/crashing_libheif.c"
        var failures: [String] = []
        for compiler in ["clang", "cc"] {
            let built = try CLIRunner.run(
                program: "/usr/bin/env", [compiler, "-shared", "-fPIC", "-o", library, source])
            if built.status == 0 { return library }
            failures.append("\(compiler): \(built.stderr)")
        }
        Issue.record("cannot build the crashing libheif: \(failures)")
        return library
    }

    /// `ASAN_OPTIONS` and `TSAN_OPTIONS` as given, plus `handle_segv=0`: in a `--sanitize=address`
    /// or `--sanitize=thread` build, the sanitizer would catch the stand-in's SIGSEGV itself,
    /// report it and exit with a status of its own (1, 66), so nothing would die of the signal
    /// these tests expect. Other builds ignore them.
    static let sanitizerOptions = ["ASAN_OPTIONS", "TSAN_OPTIONS"].map { name in
        name + "=" + (ProcessInfo.processInfo.environment[name].map { $0 + ":" } ?? "") + "handle_segv=0"
    }

    /// `imgtool arguments` with `variables` (and ``sanitizerOptions``) added to its environment.
    static func run(_ variables: [String], _ arguments: [String], in folder: String? = nil) throws -> RunResult {
        try CLIRunner.run(
            program: "/usr/bin/env", sanitizerOptions + variables + [CLIRunner.executable.path] + arguments,
            in: folder)
    }

    @Test("a crash in libheif is one error naming the input and the signal; nothing is written")
    func crash() throws {
        let folder = try makeTemporaryFolder("isolation")
        let library = try Self.crashingLibheif(in: folder)
        let run = try Self.run(["IMGTOOL_LIBHEIF=" + library], ["convert", Self.heic, folder + "/out.png"])
        #expect(run.status == 1)
        #expect(run.stderr == "error: \(Self.heic): libheif crashed decoding it (SIGSEGV)\n", "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.png"))
        // What the child parsed before decoding comes back as libheif said it (the stand-in's 64x64).
        let info = try Self.run(["IMGTOOL_LIBHEIF=" + library], ["info", Self.heic])
        #expect(info.status == 0 && info.stdout.contains("HEIF 64x64"), "\(info.stderr)")
        // Decoding in this process, the same crash ends the whole process (SIGSEGV, 139 in a shell).
        let inProcess = try CLIRunner.run(
            program: "/bin/sh",
            [
                "-c",
                "export \"$4\" \"$5\"; IMGTOOL_DECODE_IN_PROCESS=1 SWIFT_BACKTRACE=enable=no IMGTOOL_LIBHEIF=\"$0\" \"$1\" convert \"$2\" \"$3\" 2>/dev/null; echo $?",
                library, CLIRunner.executable.path, Self.heic, folder + "/in-process.png",
            ] + Self.sanitizerOptions)
        #expect(inProcess.stdout == "139\n")
    }

    @Test("a crash of imgtool itself starts no backtracer that would hold the caller's stderr open")
    func noBacktracer() throws {
        let folder = try makeTemporaryFolder("isolation-backtrace")
        let library = try Self.crashingLibheif(in: folder)
        // Reading stderr to its end returns only when every process holding it has closed it: the
        // backtracer (swift-backtrace, 2 s of work in a debug build) would print "Program crashed" and "Backtrace took".
        let run = try CLIRunner.run(
            program: "/bin/sh",
            [
                "-c",
                "export \"$4\" \"$5\"; env -u SWIFT_BACKTRACE IMGTOOL_DECODE_IN_PROCESS=1 IMGTOOL_LIBHEIF=\"$0\" \"$1\" convert \"$2\" \"$3\"; echo $?",
                library, CLIRunner.executable.path, Self.heic, folder + "/out.png",
            ] + Self.sanitizerOptions)
        #expect(run.stdout == "139\n", "\(run.stdout)")
        #expect(!run.stderr.contains("crashed") && !run.stderr.contains("Backtrace"), "\(run.stderr)")
    }

    @Test("in a batch, the job whose libheif crashes fails and the others succeed")
    func batch() throws {
        let folder = try makeTemporaryFolder("isolation-batch")
        let library = try Self.crashingLibheif(in: folder)
        let samples = BatchCLITests.samples
        let jobs = [
            BatchCLITests.line("before", ["convert", samples + "/background.png", "a.webp"]),
            BatchCLITests.line("heic", ["convert", Self.heic, "b.png"]),
            BatchCLITests.line("after", ["info", samples + "/spinner.gif"]),
        ].joined(separator: "\n")
        try Data(jobs.utf8).write(to: URL(fileURLWithPath: folder + "/jobs.ndjson"))
        let run = try Self.run(["IMGTOOL_LIBHEIF=" + library], ["batch", "jobs.ndjson", "--jobs", "1"], in: folder)
        #expect(run.status == 1, "\(run.stderr)")
        let reports = BatchCLITests.reports(run.stdout)
        #expect(reports["before"]?["status"] as? String == "ok")
        #expect(reports["after"]?["status"] as? String == "ok")
        #expect(reports["heic"]?["error"] as? String == "\(Self.heic): libheif crashed decoding it (SIGSEGV)")
        #expect(FileManager.default.fileExists(atPath: folder + "/a.webp"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/b.png"))
    }

    @Test("with the real libheif, the isolated decode gives the same pixels as one in this process")
    func samePixels() throws {
        let folder = try makeTemporaryFolder("isolation-same")
        for name in ["gradient", "alpha"] {
            let input = Self.fixtures + "/heif/\(name).heic"
            let isolated = try Self.run([], ["convert", "--depth", "16", input, folder + "/\(name)-child.png"])
            let inProcess = try Self.run(
                ["IMGTOOL_DECODE_IN_PROCESS=1"], ["convert", "--depth", "16", input, folder + "/\(name)-here.png"])
            #expect(isolated.status == inProcess.status, "\(isolated.stderr) \(inProcess.stderr)")
            guard isolated.status == 0 else { continue }  // no libheif on this machine: both say so
            let a = try Data(contentsOf: URL(fileURLWithPath: folder + "/\(name)-child.png"))
            let b = try Data(contentsOf: URL(fileURLWithPath: folder + "/\(name)-here.png"))
            #expect(a == b, "\(name)")
        }
    }
}
