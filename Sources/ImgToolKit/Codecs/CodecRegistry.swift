/// The formats imgtool reads and writes: a list of ``ImageCodec``s, asked in order.
///
/// Readers are chosen by the input's first bytes (``codec(sniffing:)``), never by its name;
/// writers by the output's extension (``codec(forOutput:)``) or a format name
/// (``codec(named:)``, `--format`). Adding a format is a folder under `Codecs/` and one line in
/// ``standard``.
public struct CodecRegistry: Sendable {
    /// The codecs, in the order they are asked.
    public let codecs: [any ImageCodec]

    /// Creates a registry of `codecs`, asked in that order.
    public init(codecs: [any ImageCodec]) {
        self.codecs = codecs
    }

    /// Every format imgtool supports.
    public static let standard = CodecRegistry(codecs: [
        PNGCodec(),
        APNGCodec(),
        GIFCodec(),
        JPEGCodec(),
        WebPCodec(),
        AVIFCodec(),
        JXLCodec(),
        HEIFCodec(),
        MP4Codec(),
        WebMCodec(),
    ])

    /// How many leading bytes ``codec(sniffing:)`` looks at.
    public static let sniffLength = 32

    /// The first reading codec whose signature `head` starts with, or `nil`.
    public func codec(sniffing head: [UInt8]) -> (any ImageCodec)? {
        let prefix = Array(head.prefix(Self.sniffLength))
        return codecs.first { $0.capabilities.contains(.read) && $0.sniff(prefix) }
    }

    /// The codec for a format name (`png`, `GIF`), case-insensitive, or `nil`.
    public func codec(named name: String) -> (any ImageCodec)? {
        let lowered = name.lowercased()
        return codecs.first { $0.format.rawValue == lowered || $0.extensions.contains(lowered) }
    }

    /// The codec whose extensions include the extension of `path` (case-insensitive), or `nil`
    /// when the name has no extension or one that no codec lists.
    public func codec(forOutput path: String) -> (any ImageCodec)? {
        guard let ext = Self.fileExtension(of: path) else { return nil }
        return codecs.first { $0.extensions.contains(ext) }
    }

    /// The codecs that can write, in registry order.
    public var writers: [any ImageCodec] {
        codecs.filter { $0.capabilities.contains(.write) }
    }

    /// The writer for an output: `format` when given (a name or extension), else the output's
    /// extension.
    /// - Parameters:
    ///   - path: the output path; `-` (standard output) needs `format`.
    ///   - format: a format name as `--format` takes it, or `nil`.
    /// - Throws: ``ImgToolError`` `invalidArgument` naming `path` when no writer fits; the message
    ///   lists the formats that can be written.
    public func writer(forOutput path: String, format: String? = nil) throws(ImgToolError) -> any ImageCodec {
        let writable = writers.map(\.format.rawValue).joined(separator: ", ")
        if let format {
            guard let codec = codec(named: format), codec.capabilities.contains(.write) else {
                throw ImgToolError(
                    .invalidArgument, "imgtool cannot write format \"\(format)\"; it writes \(writable)", input: path)
            }
            return codec
        }
        guard let ext = Self.fileExtension(of: path) else {
            let why = path == "-" ? "standard output has no extension" : "the name has no extension"
            throw ImgToolError(
                .invalidArgument, "\(why); name the format with --format (one of \(writable))", input: path)
        }
        guard let codec = codec(forOutput: path), codec.capabilities.contains(.write) else {
            throw ImgToolError(
                .invalidArgument, "imgtool cannot write .\(ext) files; it writes \(writable)", input: path)
        }
        return codec
    }

    /// The lower-cased extension of the last path component, without the dot; `nil` when there
    /// is none (or the name is only a dot file such as `.png`).
    static func fileExtension(of path: String) -> String? {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...]
        return ext.isEmpty ? nil : ext.lowercased()
    }
}
