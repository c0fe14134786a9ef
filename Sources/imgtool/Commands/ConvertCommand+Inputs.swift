import ArgumentParser
import Foundation
import ImgToolKit

/// `convert IN... OUT`: several inputs, how they make one image, and a sprite sheet's description.
extension ConvertCommand {
    /// The arrangement of the inputs and the operations, parsed from ``operationWords``.
    /// - Throws: `ValidationError` naming the option and the value.
    func plan() throws -> (arrangement: InputArrangement, operations: [ImageOperation]) {
        let arrangement: InputArrangement
        let rest: [String]
        do throws(ImgToolError) {
            (arrangement, rest) = try InputArrangement.extract(from: operationWords, keepingSteps: true)
        } catch {
            throw ValidationError(error.message)
        }
        let operations = try OperationWords.parse(rest, background: writing.background)
        let described = operations.filter { step in
            if case .sheet(let sheet) = step { return sheet.descriptionFile != nil }
            return false
        }
        if described.count > 1 { throw ValidationError("--sheet-json is given twice; name one description") }
        return (arrangement, operations)
    }

    /// Refuses an OUTPUT typed after two or more inputs when it is an existing file named like
    /// one of them but for its numbers (`frame-3.png` after `frame-1.png frame-2.png`): the shell
    /// expanded `frame-*.png` and the output was forgotten. Even `--force` does not replace it;
    /// `-o` names an output explicitly.
    /// - Throws: `ValidationError` naming the output.
    func refuseOutputNamedLikeInputs() throws {
        guard let output = outputArgument, inputTexts.count >= 2 else { return }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: output, isDirectory: &isFolder), !isFolder.boolValue else {
            return
        }
        let shape = Self.shape(of: output)
        guard let twin = inputTexts.first(where: { Self.shape(of: $0) == shape }) else { return }
        throw ValidationError(
            "\(output) is an existing image named like the input \(twin): was it meant as an input (a pattern the shell expanded)? Name the output last (imgtool convert \(twin) ... out.gif) or with -o OUTPUT"
        )
    }

    /// With `-o OUTPUT`, every word after INPUT is an input; one that names nothing (no file,
    /// folder, pattern, URL or `-`) was meant as a second output: `convert in.png x.png -o y.png`.
    /// - Throws: `ValidationError` naming both outputs.
    func refuseOutputTwice() throws {
        guard let named = outputOption else { return }
        for text in inputTexts.dropFirst() {
            // A malformed name or URL fails later with its own error.
            guard case .file(let path)? = (try? ImageInput(text))?.location else { continue }
            if FileManager.default.fileExists(atPath: path) || InputExpansion.namesMany(text) { continue }
            throw ValidationError(
                "two outputs: \(text) and -o \(named); name one (with -o, the words after INPUT are inputs, and \(text) does not exist)"
            )
        }
    }

    /// A name with every run of digits replaced by `#`: `dir/frame-#.png`.
    static func shape(of name: String) -> String {
        var shape = ""
        var inNumber = false
        for character in name {
            let digit = character.isASCII && character.isNumber
            if digit && !inNumber { shape.append("#") }
            if !digit { shape.append(character) }
            inNumber = digit
        }
        return shape
    }

    /// The inputs of a join or montage: files opened now to read their frame tables and again
    /// when they are reached; standard input and downloads read now and kept.
    /// - Throws: ``ImgToolError`` naming the input.
    func joinInputs(_ inputs: [ImageInput], in context: CommandContext) async throws(ImgToolError) -> [JoinInput] {
        var joined: [JoinInput] = []
        var readStandardInput = false
        for input in inputs {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled while opening the inputs") }
            let part: JoinInput
            switch input.location {
            case .file(let path):
                part = try JoinInput.file(
                    path, name: input.name, maxBytes: reading.maxBytes, limits: reading.limits,
                    decoding: reading.decoding)
            case .standardInput where readStandardInput:
                throw ImgToolError(.invalidArgument, "standard input can be read once", input: input.name)
            default:
                if case .standardInput = input.location { readStandardInput = true }
                part = JoinInput(source: try await reading.open(input, in: context), name: input.name)
            }
            for warning in part.info.warnings { context.note("warning: \(input.name): \(warning)") }
            joined.append(part)
        }
        return joined
    }

    /// Where `--sheet-json` writes, checked before anything is written: not an input, not an
    /// existing file without `--force`, not the image's own output.
    /// - Throws: ``ImgToolError`` naming the description's path.
    func sheetDescription(of steps: [ImageOperation], against inputs: [ImageInput], in context: CommandContext)
        throws -> String?
    {
        let path = steps.lazy.compactMap { step -> String? in
            if case .sheet(let sheet) = step { return sheet.descriptionFile }
            return nil
        }.first
        guard let path else { return nil }
        if path == "-" || path == output {
            throw ValidationError("--sheet-json \(path): name a file of its own for the sheet's description")
        }
        let check = ImageOutput(
            path: path, codec: CodecRegistry.standard.codecs[0],
            replacesExisting: writing.force || context.replacesOutputs)
        try check.check(against: inputs)
        return path
    }

    /// Writes `layout` as JSON to `path`, atomically.
    /// - Throws: ``ImgToolError`` naming `path`.
    func writeSheetDescription(
        _ layout: SpriteSheetLayout, to path: String, imageName: String, in context: CommandContext
    ) throws(ImgToolError) {
        let bytes = Array(layout.json(imageName: (imageName as NSString).lastPathComponent).utf8)
        let existing: AtomicFileWriter.ExistingFile = writing.force || context.replacesOutputs ? .replace : .fail
        try AtomicFileWriter.write(to: path, existing: existing) { (descriptor) throws(ImgToolError) in
            var sink = ByteSink(fileDescriptor: descriptor)
            try sink.append(bytes)
        }
    }
}
