extension ColorMetadata {
    /// The profile the samples are in, as a colour-managed viewer reads the file; `nil` means
    /// sRGB (no colour description, an `sRGB` chunk, sRGB code points, or a profile that cannot be
    /// used).
    ///
    /// The PNG rule of precedence: `cICP`, then an ICC profile, then `sRGB`, then `gAMA` and
    /// `cHRM` (made into a matrix/shaper profile). A CMYK profile describes no RGB pixels (a CMYK
    /// JPEG is converted through it as it is decoded), so it counts as none here.
    public var effectiveProfile: ColorProfile? {
        if let cicp, let primaries = Self.chromaticities(ofCICP: cicp.primaries),
            let gamma = Self.gamma(ofCICP: cicp.transfer)
        {
            if primaries == .sRGB && gamma == nil { return nil }
            return Self.profile(primaries, gamma: gamma, description: "cICP \(cicp.primaries)/\(cicp.transfer)")
        }
        if let profile, profile.isUsable, profile.colorSpace == .rgb || profile.colorSpace == .gray {
            return profile
        }
        if hasSRGB { return nil }
        if gamma != nil || chromaticities != nil {
            let decoding = gamma.flatMap { $0 > 0 ? 1 / $0 : nil }
            return Self.profile(chromaticities ?? .sRGB, gamma: decoding, description: "PNG gAMA/cHRM")
        }
        return nil
    }

    /// Whether the samples are sRGB (``effectiveProfile`` is `nil`).
    public var isSRGB: Bool { effectiveProfile == nil }

    /// What the samples become once converted to `profile` (`nil`: sRGB): that profile alone, or
    /// nothing for sRGB.
    static func converted(to profile: ColorProfile?) -> ColorMetadata {
        ColorMetadata(profile: profile)
    }

    private static func profile(_ primaries: Chromaticities, gamma: Double?, description: String) -> ColorProfile? {
        ColorProfile.rgb(
            white: (primaries.white[0], primaries.white[1]), red: (primaries.red[0], primaries.red[1]),
            green: (primaries.green[0], primaries.green[1]), blue: (primaries.blue[0], primaries.blue[1]),
            gamma: gamma, description: description)
    }

    /// The primaries H.273 code point `code` names, for those imgtool converts.
    static func chromaticities(ofCICP code: Int) -> Chromaticities? {
        switch code {
        case 1: .sRGB
        case 9: .bt2020
        case 12: .displayP3
        default: nil
        }
    }

    /// The transfer H.273 code point `code` names as a decoding exponent (`nil` inside
    /// `.some`: the sRGB curve), for those imgtool converts; PQ and HLG are not.
    static func gamma(ofCICP code: Int) -> Double?? {
        switch code {
        case 13: .some(nil)
        case 8: .some(1)
        case 4: .some(2.2)
        case 5: .some(2.8)
        default: nil
        }
    }
}

extension ColorMetadata {
    /// How the file describes its colours, for people: "ICC Display P3 (RGB)", "sRGB",
    /// "gAMA 0.45455 cHRM", "cICP 12/13/0"; `nil` when it says nothing (sRGB by default).
    public var summary: String? {
        var parts: [String] = []
        if let cicp { parts.append("cICP \(cicp.primaries)/\(cicp.transfer)/\(cicp.matrix)") }
        if let profile {
            parts.append("ICC " + profile.summary)
        } else if hasICCProfile {
            parts.append("ICC profile (incomplete, not used)")
        }
        if hasSRGB { parts.append("sRGB") }
        if let gamma {
            parts.append("gAMA \((gamma * 100_000).rounded() / 100_000)")
        } else if hasGamma {
            parts.append("gAMA")
        }
        if chromaticities != nil { parts.append("cHRM") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}

extension ImageInfo {
    /// Whether the EXIF block, the XMP packet or a JPEG's extended XMP packet holds a GPS position.
    public var hasGPS: Bool {
        (exif.flatMap { EXIFBlock(app1OrTIFF: $0) }?.hasGPS ?? false)
            || (xmp.map { XMPPacket(bytes: $0).hasGPS } ?? false)
            || (xmpExtension.map { XMPPacket(bytes: $0).hasGPS } ?? false)
    }
}
