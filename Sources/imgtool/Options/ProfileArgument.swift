import ArgumentParser
import Foundation
import ImgToolKit

/// `--profile keep|srgb|FILE.icc`: the file is read and checked while the arguments are parsed,
/// so a missing or unusable profile is a usage error that names it, before anything is written.
enum ProfileArgument: Equatable {
    case keep
    case sRGB
    case file(String, ColorProfile)

    /// Most bytes read from a profile file.
    static let maxBytes = 16 << 20

    /// Parses the option's value; a file must hold an RGB profile Little CMS reads.
    init(parsing value: String) throws {
        switch value.lowercased() {
        case "keep":
            self = .keep
        case "srgb":
            self = .sRGB
        default:
            guard let handle = FileHandle(forReadingAtPath: value) else {
                throw ValidationError(
                    "\(value): no such profile file (or not readable); use keep, srgb or an .icc file")
            }
            defer { try? handle.close() }
            let data = (try? handle.read(upToCount: Self.maxBytes + 1)) ?? Data()
            guard data.count <= Self.maxBytes else {
                throw ValidationError("\(value): over \(Self.maxBytes) bytes; not a colour profile")
            }
            let profile = ColorProfile(data: [UInt8](data))
            guard profile.isUsable else {
                throw ValidationError(
                    "\(value): not an ICC profile Little CMS reads (\(profile.problem ?? "unreadable"))")
            }
            guard profile.colorSpace == .rgb else {
                throw ValidationError(
                    "\(value): a \(profile.colorSpace.rawValue) profile; the output profile must be RGB")
            }
            self = .file(value, profile)
        }
    }
}
