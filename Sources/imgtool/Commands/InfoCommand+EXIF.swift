import ImgToolKit

extension InfoCommand {
    /// The `exif` object of `info --json`: every field, `null` when the file does not hold it,
    /// and the GPS position (`gps_latitude`, `gps_longitude`, `gps_altitude_m`) only when it has one.
    static func exifJSON(_ exif: EXIFSummary) -> JSONValue {
        func number(_ value: Double?, decimals: Int = 6) -> JSONValue {
            guard let value, value.isFinite else { return .null }
            let scale = pow10(decimals)
            let rounded = (value * scale).rounded() / scale
            if rounded == rounded.rounded(), abs(rounded) < 1e15 { return .int(Int(rounded)) }
            return .double(rounded)
        }
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        var object: [String: JSONValue] = [
            "make": text(exif.make),
            "model": text(exif.model),
            "lens_make": text(exif.lensMake),
            "lens_model": text(exif.lensModel),
            "date_taken": text(exif.dateTaken.map { $0 + (exif.dateTakenOffset ?? "") }),
            "date_taken_offset": text(exif.dateTakenOffset),
            "exposure_time_s": number(exif.exposureTime, decimals: 9),
            "exposure_time": text(exif.exposureTimeText),
            "f_number": number(exif.fNumber, decimals: 2),
            "iso": .optional(exif.iso),
            "exposure_bias_ev": number(exif.exposureBias, decimals: 2),
            "focal_length_mm": number(exif.focalLength, decimals: 2),
            "focal_length_35mm": .optional(exif.focalLength35mm),
            "orientation": .optional(exif.orientation),
            "x_resolution": number(exif.xResolution, decimals: 3),
            "y_resolution": number(exif.yResolution, decimals: 3),
            "resolution_unit": text(exif.resolutionUnit?.rawValue),
        ]
        if exif.hasGPSPosition {
            object["gps_latitude"] = number(exif.gpsLatitude, decimals: 7)
            object["gps_longitude"] = number(exif.gpsLongitude, decimals: 7)
            object["gps_altitude_m"] = number(exif.gpsAltitude, decimals: 2)
        }
        return .object(object)
    }

    /// `10^n` as a double.
    private static func pow10(_ exponent: Int) -> Double {
        (0..<exponent).reduce(1) { value, _ in value * 10 }
    }

    /// The text `info` line of the EXIF summary: camera, lens, date, exposure, GPS position,
    /// density; `nil` when none is known.
    static func exifText(_ exif: EXIFSummary) -> String? {
        var parts: [String] = []
        let camera: String? =
            switch (exif.make, exif.model) {
            case (let make?, let model?): model.lowercased().hasPrefix(make.lowercased()) ? model : make + " " + model
            case (let make?, nil): make
            case (nil, let model?): model
            case (nil, nil): nil
            }
        if let camera { parts.append(camera) }
        if let lens = exif.lensModel ?? exif.lensMake { parts.append("lens " + lens) }
        if let date = exif.dateTaken { parts.append("taken " + date + (exif.dateTakenOffset ?? "")) }
        if let exposure = exif.exposureTimeText { parts.append(exposure + " s") }
        if let fNumber = exif.fNumber { parts.append("f/" + format(fNumber, decimals: 1)) }
        if let iso = exif.iso { parts.append("ISO \(iso)") }
        if let focal = exif.focalLength {
            parts.append(
                format(focal, decimals: 1) + " mm" + (exif.focalLength35mm.map { " (\($0) mm in 35 mm)" } ?? ""))
        }
        if let bias = exif.exposureBias, bias != 0 {
            parts.append((bias > 0 ? "+" : "") + format(bias, decimals: 2) + " EV")
        }
        if exif.hasGPSPosition, let latitude = exif.gpsLatitude, let longitude = exif.gpsLongitude {
            var position = "GPS \(format(latitude, decimals: 7)), \(format(longitude, decimals: 7))"
            if let altitude = exif.gpsAltitude { position += ", \(format(altitude, decimals: 1)) m" }
            parts.append(position)
        }
        if let x = exif.xResolution, let unit = exif.resolutionUnit, unit != .none {
            let y = exif.yResolution ?? x
            let name = unit == .inch ? "dpi" : "pixels/cm"
            parts.append(
                x == y
                    ? "\(format(x, decimals: 2)) \(name)"
                    : "\(format(x, decimals: 2))x\(format(y, decimals: 2)) \(name)")
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// `value` with at most `decimals` decimals, without trailing zeros.
    private static func format(_ value: Double, decimals: Int) -> String {
        let scale = pow10(decimals)
        let rounded = (value * scale).rounded() / scale
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int(rounded)) }
        return String(rounded)
    }
}
