extension DecodingOptions {
    /// Which damage makes an input fail, as sharp's `failOn` and libvips's `fail_on`; input that
    /// cannot be decoded at all fails whatever the level.
    ///
    /// The levels are ordered: each fails on what the one before it fails on, and more. sharp's
    /// `error` level has no separate meaning here: imgtool has no kind of damage between a cut
    /// file and any other warning.
    public enum FailOn: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
        /// Decode what is there: a file cut short shows what arrived (a GIF's or WebP's complete
        /// frames, a JPEG's rows or scans, the rest grey), with a warning in
        /// ``ImageInfo/warnings`` (the default; sharp's `none`).
        case none
        /// Fail on input that ends early (``ImageInfo/isComplete`` `false`); sharp's `truncated`.
        case truncated
        /// Fail on any warning: damage worked around, metadata left out, colours read as sRGB
        /// (``ImageInfo/warnings``, and for JPEG the scan data's warnings found while decoding,
        /// ``ImageMetadata/warnings``); sharp's `warning`.
        case warning

        /// Orders the levels from ``none`` to ``warning``.
        public static func < (lhs: Self, rhs: Self) -> Bool {
            allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
        }

        /// Throws when `info` shows damage this level refuses.
        /// - Throws: ``ImgToolError`` `truncated` for a cut input, `corrupt` for another warning;
        ///   the message is the warning, naming no input.
        func check(_ info: ImageInfo) throws(ImgToolError) {
            if self >= .truncated, !info.isComplete {
                let warning = info.warnings.first { $0.contains("data ends") } ?? info.warnings.first
                try refuse(warning ?? "the data ends early", code: .truncated)
            }
            if self >= .warning, let warning = info.warnings.first {
                try refuse(warning, code: info.isComplete ? .corrupt : .truncated)
            }
        }

        /// Throws when a decoder's own warnings (``ImageMetadata/warnings``: libjpeg's, found in
        /// the scan data) show damage this level refuses; `truncated` tells which of them say the
        /// data ended early.
        func check(decodeWarnings warnings: [String], truncated: (String) -> Bool) throws(ImgToolError) {
            if self >= .truncated, let cut = warnings.first(where: truncated) { try refuse(cut, code: .truncated) }
            if self >= .warning, let warning = warnings.first { try refuse(warning, code: .corrupt) }
        }

        private func refuse(_ warning: String, code: ImgToolError.Code) throws(ImgToolError) {
            throw ImgToolError(code, "\(warning) (refused: fail-on \(rawValue))")
        }
    }
}
