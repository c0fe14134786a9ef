import ImgToolKit

/// Writes `text` to standard error.
func complain(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

// usage: webp-convert INPUT OUTPUT.webp [--lossless | --lossy] [--quality N]
// Opens INPUT with ImgToolKit (any format the registry reads), picks the writer by OUTPUT's
// extension and writes every frame, delay and play; exits 1 with the error on failure.
#if canImport(Glibc)
    import Glibc
#endif

var arguments = Array(CommandLine.arguments.dropFirst())
var options = ImageWriteOptions()
if let index = arguments.firstIndex(of: "--lossless") {
    options.lossless = true
    arguments.remove(at: index)
}
if let index = arguments.firstIndex(of: "--lossy") {
    options.lossless = false
    arguments.remove(at: index)
}
if let index = arguments.firstIndex(of: "--quality"), index + 1 < arguments.count {
    options.quality = Int(arguments[index + 1])
    arguments.removeSubrange(index...index + 1)
}
guard arguments.count == 2 else {
    complain("usage: webp-convert INPUT OUTPUT.webp [--lossless | --lossy] [--quality N]\n")
    exit(64)
}
do {
    let source = try ImageSource(contentsOf: arguments[0])
    let codec = try CodecRegistry.standard.writer(forOutput: arguments[1])
    let descriptor = open(arguments[1], O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard descriptor >= 0 else {
        complain("cannot create \(arguments[1])\n")
        exit(1)
    }
    defer { close(descriptor) }
    var sink = ByteSink(fileDescriptor: descriptor)
    try await codec.write(source, into: &sink, options: options, progress: nil)
} catch {
    complain("error: \(error)\n")
    exit(1)
}
