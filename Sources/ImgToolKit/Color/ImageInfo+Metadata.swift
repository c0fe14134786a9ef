extension ImageInfo {
    /// Sets the ICC profile (warning when Little CMS cannot use it), the EXIF block (a leading
    /// `Exif\0\0` removed, as some writers put in WebP's chunk) with the orientation tag it
    /// holds, and the XMP packet, as a reader found them.
    mutating func describeMetadata(icc: [UInt8]?, exif: [UInt8]?, xmp: [UInt8]?) {
        if let icc {
            let profile = ColorProfile(data: icc)
            color.profile = profile
            color.hasICCProfile = true
            if let warning = profile.unusableWarning { warnings.append(warning) }
        }
        if let exif {
            let prefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
            let tiff = exif.starts(with: prefix) ? Array(exif.dropFirst(prefix.count)) : exif
            self.exif = tiff
            hasEXIF = true
            exifOrientation = EXIFReader.orientation(inTIFF: tiff[...])
        }
        if let xmp { self.xmp = xmp }
    }
}

extension ImageInfo {
    /// Takes `original`'s colour description, EXIF and XMP blocks and orientation: for an image
    /// made from it (a merge onto it), whose pixels are in its colour space.
    public mutating func adoptDescription(of original: ImageInfo) {
        color = original.color
        exif = original.exif
        xmp = original.xmp
        hasEXIF = original.hasEXIF
        exifOrientation = original.exifOrientation
        appliedOrientation = original.appliedOrientation
        exifOrientationIsInformational = original.exifOrientationIsInformational
    }
}
