import ArgumentParser
import ImgToolKit

/// Decoding limits shared by every subcommand that reads images.
struct LimitOptions: ParsableArguments {
    @Option(name: .customLong("max-pixels"), help: "Refuse images or frames with more pixels than this.")
    var maxPixels: Int = DecodingLimits.default.maxPixels

    @Option(name: .customLong("max-frames"), help: "Refuse animations with more frames than this.")
    var maxFrames: Int = DecodingLimits.default.maxFrames

    @Option(
        name: .customLong("max-total-pixels"),
        help: "Refuse animations that would compose more pixels than this in all (frames x canvas).")
    var maxTotalPixels: Int = DecodingLimits.default.maxTotalPixels

    func validate() throws {
        guard maxPixels > 0, maxFrames > 0, maxTotalPixels > 0 else {
            throw ValidationError("limits must be positive")
        }
    }

    var limits: DecodingLimits {
        DecodingLimits(maxPixels: maxPixels, maxFrames: maxFrames, maxTotalPixels: maxTotalPixels)
    }
}
