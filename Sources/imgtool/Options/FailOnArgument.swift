import ArgumentParser
import ImgToolKit

/// `--fail-on none|truncated|warning`, on every command that reads images (InputOptions).
enum FailOnArgument {
    static let help = ArgumentHelp(
        "Damage that makes an input fail (exit 1) instead of a warning: none (decode what is there: a cut GIF, WebP or JPEG shows what arrived), truncated (a cut file fails), warning (any warning fails).",
        valueName: "none|truncated|warning")
}

extension DecodingOptions.FailOn: ExpressibleByArgument {}
