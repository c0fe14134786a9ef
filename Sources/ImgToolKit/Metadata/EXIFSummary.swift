/// The EXIF fields people ask about a photo: camera, lens, when it was taken, the exposure, where,
/// which way up, and the pixel density.
///
/// Read from an EXIF block's TIFF directories, in either byte order: IFD0 (make, model,
/// orientation, resolution), its Exif directory (tag 0x8769: date, exposure, lens) and its GPS
/// directory (tag 0x8825). Each field is `nil` when the block does not hold it, holds it with the
/// wrong type, or holds a value that cannot be read (a zero denominator, an offset past the end);
/// a damaged block gives the fields that can be read, as ImageIO's `CGImageSourceCopyPropertiesAtIndex`
/// does (`kCGImagePropertyExifDictionary`, `kCGImagePropertyGPSDictionary`).
///
/// ```swift
/// let info = try ImageSource(contentsOf: "photo.jpg").info
/// if let exif = info.exifSummary, let latitude = exif.gpsLatitude {
///     print(exif.model ?? "?", latitude)
/// }
/// ```
public struct EXIFSummary: Sendable, Hashable {
    /// The camera's maker (tag 0x010F, Make).
    public var make: String?
    /// The camera's model (tag 0x0110, Model).
    public var model: String?
    /// The lens's maker (tag 0xA433, LensMake).
    public var lensMake: String?
    /// The lens's model (tag 0xA434, LensModel).
    public var lensModel: String?
    /// When the photo was taken, as the camera's clock read (tag 0x9003, DateTimeOriginal), in
    /// ISO 8601 form without a zone: `2024-05-01T12:34:56`, with `.sss` when the file gives
    /// sub-seconds (tag 0x9291). `nil` when absent or not of the form `YYYY:MM:DD HH:MM:SS`.
    public var dateTaken: String?
    /// The clock's offset from UTC when the photo was taken (tag 0x9011, OffsetTimeOriginal), as
    /// stored: `+02:00`, `-05:00`.
    public var dateTakenOffset: String?
    /// The exposure time in seconds (tag 0x829A, ExposureTime, a RATIONAL: 1/250 is 0.004).
    public var exposureTime: Double?
    /// The exposure time as stored, as a fraction (`1/250`) or a number of seconds (`2`, `0.5`).
    public var exposureTimeText: String?
    /// The aperture as an f-number (tag 0x829D, FNumber): 2.8 for f/2.8.
    public var fNumber: Double?
    /// The ISO speed (tag 0x8827, PhotographicSensitivity, formerly ISOSpeedRatings).
    public var iso: Int?
    /// The exposure compensation in EV (tag 0x9204, ExposureBiasValue, an SRATIONAL: -2/3 is -0.667).
    public var exposureBias: Double?
    /// The lens's focal length in millimetres (tag 0x920A, FocalLength).
    public var focalLength: Double?
    /// The focal length a 35 mm film camera would need for the same view, in millimetres
    /// (tag 0xA405, FocalLengthIn35mmFilm).
    public var focalLength35mm: Int?
    /// The latitude in degrees, positive north and negative south (GPS tags 0x0002 GPSLatitude,
    /// three RATIONALs of degrees, minutes and seconds, and 0x0001 GPSLatitudeRef `N` or `S`).
    /// `nil` when either is missing or the reference is neither.
    public var gpsLatitude: Double?
    /// The longitude in degrees, positive east and negative west (GPS tags 0x0004 and 0x0003,
    /// `E` or `W`).
    public var gpsLongitude: Double?
    /// The altitude in metres, negative below sea level (GPS tags 0x0006 GPSAltitude and 0x0005
    /// GPSAltitudeRef: 0 or absent is above sea level, 1 below).
    public var gpsAltitude: Double?
    /// The orientation tag (0x0112) as stored, as ``ImageInfo/exifOrientation`` has it.
    public var orientation: Int?
    /// Pixels per ``resolutionUnit`` across (tag 0x011A, XResolution).
    public var xResolution: Double?
    /// Pixels per ``resolutionUnit`` down (tag 0x011B, YResolution).
    public var yResolution: Double?
    /// The unit of ``xResolution`` and ``yResolution`` (tag 0x0128, ResolutionUnit; TIFF's
    /// default, inches, when absent and a resolution is given).
    public var resolutionUnit: ResolutionUnit?

    /// The unit of a pixel density: TIFF's ResolutionUnit values.
    public enum ResolutionUnit: String, Sendable, Hashable, CaseIterable {
        /// 1: no absolute unit (the values give the aspect ratio of a pixel only).
        case none
        /// 2: pixels per inch (dpi).
        case inch
        /// 3: pixels per centimetre.
        case centimeter = "cm"
    }

    /// Whether the block holds a GPS position (a latitude and a longitude).
    public var hasGPSPosition: Bool { gpsLatitude != nil && gpsLongitude != nil }

    /// Creates a summary with every field `nil`; set the ones known.
    public init() {}

    /// Reads the fields from an EXIF block.
    /// - Parameter tiff: the TIFF structure, from its byte-order mark (`II` or `MM`) on, as
    ///   ``ImageInfo/exif`` holds it; a JPEG APP1 payload starting `Exif\0\0` is taken too.
    /// - Returns: `nil` when the bytes are not a TIFF structure with a readable IFD0; otherwise a
    ///   summary of the fields that could be read (possibly none).
    public init?(tiff: [UInt8]) {
        let prefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]  // "Exif\0\0"
        let body = tiff.starts(with: prefix) ? tiff[prefix.count...] : tiff[...]
        guard let reader = TIFFReader(tiff: body), let ifd0 = reader.firstDirectory else { return nil }
        self.init()
        readImageDirectory(reader, at: ifd0)
        if let exif = reader.subdirectory(Tag.exifDirectory, inDirectoryAt: ifd0) {
            readExifDirectory(reader, at: exif)
        }
        if let gps = reader.subdirectory(Tag.gpsDirectory, inDirectoryAt: ifd0) {
            readGPSDirectory(reader, at: gps)
        }
    }

    /// Tag numbers (TIFF 6.0, EXIF 2.32).
    enum Tag {
        static let make: UInt16 = 0x010F
        static let model: UInt16 = 0x0110
        static let orientation: UInt16 = 0x0112
        static let xResolution: UInt16 = 0x011A
        static let yResolution: UInt16 = 0x011B
        static let resolutionUnit: UInt16 = 0x0128
        static let exifDirectory: UInt16 = 0x8769
        static let gpsDirectory: UInt16 = 0x8825
        static let exposureTime: UInt16 = 0x829A
        static let fNumber: UInt16 = 0x829D
        static let iso: UInt16 = 0x8827
        static let dateTimeOriginal: UInt16 = 0x9003
        static let offsetTimeOriginal: UInt16 = 0x9011
        static let exposureBias: UInt16 = 0x9204
        static let focalLength: UInt16 = 0x920A
        static let subSecTimeOriginal: UInt16 = 0x9291
        static let focalLength35mm: UInt16 = 0xA405
        static let lensMake: UInt16 = 0xA433
        static let lensModel: UInt16 = 0xA434
        static let gpsLatitudeRef: UInt16 = 0x0001
        static let gpsLatitude: UInt16 = 0x0002
        static let gpsLongitudeRef: UInt16 = 0x0003
        static let gpsLongitude: UInt16 = 0x0004
        static let gpsAltitudeRef: UInt16 = 0x0005
        static let gpsAltitude: UInt16 = 0x0006
    }

    private mutating func readImageDirectory(_ reader: TIFFReader, at base: Int) {
        let entries = Dictionary(reader.entries(ofDirectoryAt: base).map { ($0.tag, $0) }) { first, _ in first }
        make = entries[Tag.make].flatMap(reader.text(of:))
        model = entries[Tag.model].flatMap(reader.text(of:))
        orientation = entries[Tag.orientation].flatMap { reader.integer(of: $0) }
        xResolution = entries[Tag.xResolution].flatMap { reader.rational(of: $0)?.value }
        yResolution = entries[Tag.yResolution].flatMap { reader.rational(of: $0)?.value }
        if let unit = entries[Tag.resolutionUnit] {
            switch reader.integer(of: unit) {
            case 1: resolutionUnit = ResolutionUnit.none
            case 2: resolutionUnit = .inch
            case 3: resolutionUnit = .centimeter
            default: resolutionUnit = nil
            }
        } else if xResolution != nil || yResolution != nil {
            resolutionUnit = .inch
        }
    }

    private mutating func readExifDirectory(_ reader: TIFFReader, at base: Int) {
        let entries = Dictionary(reader.entries(ofDirectoryAt: base).map { ($0.tag, $0) }) { first, _ in first }
        if let exposure = entries[Tag.exposureTime].flatMap({ reader.rational(of: $0) }), let seconds = exposure.value,
            seconds >= 0
        {
            exposureTime = seconds
            exposureTimeText = Self.fractionText(exposure)
        }
        fNumber = entries[Tag.fNumber].flatMap { reader.rational(of: $0)?.value }
        iso = entries[Tag.iso].flatMap { reader.integer(of: $0) }
        exposureBias = entries[Tag.exposureBias].flatMap { reader.rational(of: $0)?.value }
        focalLength = entries[Tag.focalLength].flatMap { reader.rational(of: $0)?.value }
        focalLength35mm = entries[Tag.focalLength35mm].flatMap { reader.integer(of: $0) }
        lensMake = entries[Tag.lensMake].flatMap(reader.text(of:))
        lensModel = entries[Tag.lensModel].flatMap(reader.text(of:))
        dateTaken = entries[Tag.dateTimeOriginal].flatMap(reader.text(of:)).flatMap { stored in
            let subSeconds = entries[Tag.subSecTimeOriginal].flatMap(reader.text(of:))
            return Self.isoDate(stored, subSeconds: subSeconds)
        }
        dateTakenOffset = entries[Tag.offsetTimeOriginal].flatMap(reader.text(of:)).flatMap(Self.validOffset)
    }

    private mutating func readGPSDirectory(_ reader: TIFFReader, at base: Int) {
        let entries = Dictionary(reader.entries(ofDirectoryAt: base).map { ($0.tag, $0) }) { first, _ in first }
        func coordinate(_ valueTag: UInt16, _ referenceTag: UInt16, positive: Character, negative: Character)
            -> Double?
        {
            guard let entry = entries[valueTag], entry.count >= 1,
                let reference = entries[referenceTag].flatMap(reader.text(of:))?.uppercased().first,
                reference == positive || reference == negative
            else { return nil }
            // Degrees, minutes, seconds; writers that store fewer parts put the rest in the first.
            var degrees = 0.0
            for (index, scale) in [1.0, 60, 3600].enumerated() where index < Int(entry.count) {
                guard let part = reader.rational(of: entry, at: index)?.value else { return nil }
                degrees += part / scale
            }
            guard degrees.isFinite else { return nil }
            return reference == negative ? -degrees : degrees
        }
        gpsLatitude = coordinate(Tag.gpsLatitude, Tag.gpsLatitudeRef, positive: "N", negative: "S")
        gpsLongitude = coordinate(Tag.gpsLongitude, Tag.gpsLongitudeRef, positive: "E", negative: "W")
        if let altitude = entries[Tag.gpsAltitude].flatMap({ reader.rational(of: $0)?.value }) {
            let below = entries[Tag.gpsAltitudeRef].flatMap { reader.integer(of: $0) } == 1
            gpsAltitude = below ? -altitude : altitude
        }
    }

    /// `1/250` for 1/250 (and 10/2500), `2` for 2/1, `0.3` for 3/10: a fraction when the
    /// numerator divides the denominator, a whole number when the denominator divides the
    /// numerator, else the quotient.
    static func fractionText(_ rational: TIFFReader.Rational) -> String {
        let (numerator, denominator) = (rational.numerator, rational.denominator)
        guard denominator > 0, numerator >= 0 else { return rational.value.map { String($0) } ?? "" }
        if numerator > 0, numerator < denominator, denominator % numerator == 0 {
            return "1/\(denominator / numerator)"
        }
        if numerator % denominator == 0 { return String(numerator / denominator) }
        return String(Double(numerator) / Double(denominator))
    }

    /// `2024:05:01 12:34:56` as `2024-05-01T12:34:56`, with `.sss` sub-seconds when given;
    /// `nil` unless every field is a number.
    static func isoDate(_ stored: String, subSeconds: String?) -> String? {
        let characters = Array(stored)
        guard characters.count >= 19 else { return nil }
        let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        guard digits.allSatisfy({ characters[$0].isASCII && characters[$0].isNumber }),
            characters[4] == ":", characters[7] == ":", characters[13] == ":", characters[16] == ":"
        else { return nil }
        let date = String(characters[0..<4]) + "-" + String(characters[5..<7]) + "-" + String(characters[8..<10])
        var text = date + "T" + String(characters[11..<19])
        if let subSeconds, !subSeconds.isEmpty, subSeconds.allSatisfy({ $0.isASCII && $0.isNumber }) {
            text += "." + subSeconds
        }
        return text
    }

    /// The offset when it has the form `+HH:MM` or `-HH:MM`.
    static func validOffset(_ text: String) -> String? {
        let characters = Array(text)
        guard characters.count == 6, characters[0] == "+" || characters[0] == "-", characters[3] == ":",
            [1, 2, 4, 5].allSatisfy({ characters[$0].isASCII && characters[$0].isNumber })
        else { return nil }
        return text
    }
}

extension ImageInfo {
    /// The EXIF fields of ``exif`` read into a summary; `nil` when the file carries no EXIF block
    /// (or one too large to keep, or not a TIFF structure).
    public var exifSummary: EXIFSummary? {
        exif.flatMap { EXIFSummary(tiff: $0) }
    }
}
