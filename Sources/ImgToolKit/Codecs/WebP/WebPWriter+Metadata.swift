internal import CWebP

extension WebPWriter {
    /// This writer, adding what `color` says: the ICC profile as `ICCP`, the EXIF block as
    /// `EXIF`, the XMP packet as `XMP ` (libwebpmux sets the `VP8X` flags).
    func describing(_ color: OutputColor) -> WebPWriter {
        var writer = self
        if case .icc(let profile) = color.description { writer.metadataChunks.append(("ICCP", profile.data)) }
        if let exif = color.exif { writer.metadataChunks.append(("EXIF", exif)) }
        if let xmp = color.xmp { writer.metadataChunks.append(("XMP ", xmp)) }
        return writer
    }

    /// `file` with ``metadataChunks`` added by libwebpmux, or `file` itself when there are none.
    /// - Throws: ``ImgToolError`` `writeFailed` when libwebpmux refuses.
    func addingMetadata(to file: [UInt8]) throws(ImgToolError) -> [UInt8] {
        guard !metadataChunks.isEmpty else { return file }
        let failure = ImgToolError(.writeFailed, "libwebpmux could not add the colour profile or metadata")
        let result: [UInt8]? = file.withUnsafeBufferPointer { bytes in
            var data = WebPData(bytes: bytes.baseAddress, size: bytes.count)
            guard let mux = WebPMuxCreate(&data, 0) else { return nil }
            defer { WebPMuxDelete(mux) }
            for chunk in metadataChunks {
                let status = chunk.data.withUnsafeBufferPointer { payload in
                    var data = WebPData(bytes: payload.baseAddress, size: payload.count)
                    return WebPMuxSetChunk(mux, chunk.tag, &data, 1)
                }
                guard status == WEBP_MUX_OK else { return nil }
            }
            var assembled = WebPData()
            guard WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK, let start = assembled.bytes else { return nil }
            defer { WebPDataClear(&assembled) }
            return Array(UnsafeBufferPointer(start: start, count: assembled.size))
        }
        guard let result else { throw failure }
        return result
    }
}
