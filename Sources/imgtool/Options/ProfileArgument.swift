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
            if let refusal = Self.refusal(ofClass: [UInt8](data)) {
                throw ValidationError("\(value): \(refusal)")
            }
            guard profile.colorSpace == .rgb else {
                let space =
                    profile.colorSpace == .other ? Self.dataColorSpace([UInt8](data)) : profile.colorSpace.rawValue
                throw ValidationError("\(value): a profile for \(space) data; the output profile must be RGB")
            }
            self = .file(value, profile)
        }
    }

    /// Why a profile of the class the ICC header declares (bytes 12-15) cannot describe an
    /// output's pixels, or `nil` when it can (a display, input, output or colour space profile).
    /// A device link or an abstract profile is a transform between two spaces, and a named
    /// colour profile a list of colours: none describes an image's pixels.
    static func refusal(ofClass header: [UInt8]) -> String? {
        guard header.count >= 20 else { return nil }
        let signature = String(decoding: header[12..<16], as: UTF8.self)
        let kind =
            switch signature {
            case "link": "a device link profile"
            case "abst": "an abstract profile"
            case "nmcl": "a named colour profile"
            default: String?.none
            }
        guard let kind else { return nil }
        return
            "\(kind) (class '\(signature)', \(dataColorSpace(header)) data) cannot be an output profile; give an RGB display profile (class 'mntr'), keep or srgb"
    }

    /// The data colour space the header declares (bytes 16-19), trimmed: `Lab`, `RGB`, `CMYK`.
    static func dataColorSpace(_ header: [UInt8]) -> String {
        guard header.count >= 20 else { return "unknown" }
        return String(decoding: header[16..<20], as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }
}
