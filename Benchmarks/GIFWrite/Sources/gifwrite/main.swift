import ImgToolKit

// usage: gifwrite INPUT OUTPUT.gif [--colors N] [--dither none|ordered|diffusion] [--plays N]
// Writes INPUT (any format imgtool reads) as a GIF through CodecRegistry.standard.
#if canImport(Glibc)
    import Glibc
#endif

func fail(_ message: String, status: Int32) -> Never {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var options = ImageWriteOptions()
var paths: [String] = []
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--colors": options.colors = Int(arguments.removeFirst()) ?? 256
    case "--dither": options.dither = ImageWriteOptions.Dither(rawValue: arguments.removeFirst()) ?? .ordered
    case "--plays": options.plays = Int(arguments.removeFirst())
    default: paths.append(argument)
    }
}
guard paths.count == 2 else {
    fail("usage: gifwrite INPUT OUTPUT.gif [--colors N] [--dither none|ordered|diffusion] [--plays N]", status: 64)
}
do {
    let source = try ImageSource(contentsOf: paths[0])
    let codec = try CodecRegistry.standard.writer(forOutput: paths[1])
    let descriptor = open(paths[1], O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard descriptor >= 0 else {
        fail("gifwrite: cannot create \(paths[1])", status: 1)
    }
    defer { close(descriptor) }
    var sink = ByteSink(fileDescriptor: descriptor)
    try await codec.write(source, into: &sink, options: options, progress: nil)
} catch {
    fail("error: \(error)", status: 1)
}
