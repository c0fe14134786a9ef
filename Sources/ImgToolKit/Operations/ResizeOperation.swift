/// A resize with today's resampler (``ResizedFrameSource``): `--resize W` (a width), `--resize xH`
/// (a height), `--resize WxH` (the largest size that fits inside, aspect kept) or `--resize 50%`
/// in a chain, and every form `imgtool resize` takes (``ResizeSpec``: `--width`, `--height`,
/// `--size WxH --fit`, a thumbnail `--size N`). Lanczos3 unless another filter is named.
///
/// A thumbnail of an image the codec can shrink as it decodes (a JPEG, at a reduced DCT scale)
/// is decoded at the smallest such size that leaves four times the output for the filter, or
/// twice it when no scale leaves four, as vipsthumbnail does; any other resize decodes at full
/// size and is exact.
public struct ResizeOperation: FrameOperation, Hashable, Codable {
    /// The size.
    public var spec: ResizeSpec
    /// The reconstruction filter.
    public var filter: ResampleFilter
    /// Whether to filter in linear light.
    public var linear: Bool

    /// A resize to `spec`.
    public init(spec: ResizeSpec, filter: ResampleFilter = .lanczos3, linear: Bool = false) {
        self.spec = spec
        self.filter = filter
        self.linear = linear
    }

    /// A resize to `size` as `--resize` takes it: a bare number is a width (not a thumbnail),
    /// `WxH` fits inside the box, `P%` scales both sides.
    /// - Throws: ``ImgToolError`` `invalidArgument` naming `--resize` and the value, or the filter.
    public init(size: String, filter: String = "lanczos3", linear: Bool = false) throws(ImgToolError) {
        let spec: ResizeSpec
        do throws(ImgToolError) {
            if !size.lowercased().contains("x") && !size.hasSuffix("%") {
                spec = try ResizeSpec(width: size)
            } else {
                spec = try ResizeSpec(size: size, fit: "contain")
            }
        } catch {
            // The parser names --width, --size height...: the user typed --resize.
            throw ImgToolError(
                .invalidArgument,
                "--resize \(size): expected W, WxH, Wx or xH, each side a whole number of pixels above 0 or a percentage such as 50%"
            )
        }
        self.init(spec: spec, filter: try ResampleFilter(named: filter), linear: linear)
    }

    /// This step applied to `source` (see ``FrameOperation/apply(to:context:)``).
    ///
    /// A right-angle turn or a mirror just before the resize is moved after it: the image is
    /// resized as stored and the small result turned. The turn moves pixels exactly, so this is the
    /// same resize of the same picture, on a tenth of the pixels when shrinking; and a JPEG or PNG
    /// under the turn is then resized as it is decoded, never held whole. `--rotate 90 --resize W`
    /// gives the same pixels whatever the source's format.
    ///
    /// A crop just before the resize, of a still JPEG or PNG, is resized as the image is decoded:
    /// the rows and columns outside the box are dropped as they come, and the full-size image is
    /// never made. A thumbnail of a crop of a JPEG is resized from a decode at a reduced DCT
    /// scale, chosen for the box as a whole JPEG's thumbnail is chosen for the image.
    public func apply(to source: any FrameSource, context: OperationContext) async throws(ImgToolError)
        -> any FrameSource
    {
        // The size is resolved against the image as displayed.
        let displayed = PixelSize(width: source.info.width, height: source.info.height)
        let geometry = try spec.resolve(against: displayed, limits: context.limits)
        if let cropped = source as? MappedFrameSource, let crop = cropped.mapping as? CropOperation.Mapping,
            let streaming = cropped.base as? any RowStreamingSource, cropped.base.info.frameCount == 1
        {
            if spec.isThumbnail, let image = cropped.base as? ImageSource,
                let reduced = try thumbnail(of: crop.region, in: image, to: geometry, context)
            {
                return reduced
            }
            return try resize(
                CroppedRowSource(streaming, region: crop.region), to: geometry, displayed: displayed, context)
        }
        if let turned = source as? MappedFrameSource, let turn = turned.mapping.exactTurn {
            let scaled = turn.inverse.displayedSize(of: geometry.scaledSize)
            let stored = ResizeGeometry(scaledSize: scaled, crop: turn.storedRegion(of: geometry.crop, stored: scaled))
            return MappedFrameSource(
                try resize(turned.base, to: stored, displayed: turn.inverse.displayedSize(of: displayed), context),
                mapping: turned.mapping)
        }
        return try resize(source, to: geometry, displayed: displayed, context)
    }

    /// The thumbnail of `region` of `image` (in displayed pixels), resized to `geometry` from a
    /// decode at the reduced scale the box needs (``reducedDecode(of:leaving:times:_:)``); `nil`
    /// when there is none.
    ///
    /// The box is carried to the smaller decode exactly, in fractions of its pixels (a stored
    /// pixel `u` of the full size is at `u / s` of a decode at 1/`s`, whatever the orientation),
    /// and that window of it is what the filter scales (``Resampler/SourceWindow``).
    private func thumbnail(
        of region: FrameRegion, in image: ImageSource, to geometry: ResizeGeometry, _ context: OperationContext
    ) throws(ImgToolError) -> (any FrameSource)? {
        guard let scaled = try reducedDecode(of: image, leaving: region, times: geometry.scaledSize, context) else {
            return nil
        }
        let (stored, orientation) = (image.info.storedSize, image.info.appliedOrientation)
        let shown = PixelSize(width: scaled.info.width, height: scaled.info.height)
        let scaledStored = orientation.displayedSize(of: shown)  // the same swap turns it back
        guard
            let denominator = [2, 4, 8].first(where: {
                (stored.width + $0 - 1) / $0 == scaledStored.width
                    && (stored.height + $0 - 1) / $0 == scaledStored.height
            })
        else { return nil }
        // The box in the smaller decode, as displayed: its stored box divided by the scale.
        let storedBox = orientation.storedRegion(of: region, stored: stored)
        let s = Double(denominator)
        let box = orientation.displayedBox(
            x: Double(storedBox.x) / s, y: Double(storedBox.y) / s, width: Double(storedBox.width) / s,
            height: Double(storedBox.height) / s, stored: scaledStored)
        // The geometry's output was checked against the limits when it was resolved.
        let resampler = Resampler(
            checkedFrom: shown, scaledTo: geometry.scaledSize, croppedTo: geometry.crop, filter: filter,
            linear: linear, window: Resampler.SourceWindow(x: box.x, y: box.y, width: box.width, height: box.height))
        return try ResizedFrameSource(scaled, resampler: resampler, limits: context.limits)
    }

    /// `image` decoded at the smallest reduced scale its codec offers (a JPEG's DCT scaling)
    /// that leaves `box` (a part of it as displayed) four times `output`, or twice it when no
    /// scale leaves four, as vipsthumbnail does; `nil` when no scale leaves twice it, or the
    /// codec decodes at full size only.
    private func reducedDecode(
        of image: ImageSource, leaving box: FrameRegion, times output: PixelSize, _ context: OperationContext
    ) throws(ImgToolError) -> ImageSource? {
        guard !image.data.isEmpty else { return nil }
        let full = PixelSize(width: image.info.width, height: image.info.height)
        for margin in [4, 2] {
            // The whole image at the size that leaves the box `margin` times the output.
            let wanted = PixelSize(
                width: (full.width * output.width * margin + box.width - 1) / box.width,
                height: (full.height * output.height * margin + box.height - 1) / box.height)
            guard wanted.width < full.width, wanted.height < full.height else { continue }
            var decoding = context.decoding
            decoding.minimumSize = wanted
            let scaled = try ImageSource(data: image.data, name: image.name, limits: context.limits, options: decoding)
            if scaled.info.width < full.width { return scaled }
        }
        return nil
    }

    /// `source` (of size `displayed`) resized to `geometry`.
    private func resize(
        _ source: any FrameSource, to geometry: ResizeGeometry, displayed: PixelSize, _ context: OperationContext
    ) throws(ImgToolError) -> any FrameSource {
        var base = source
        if spec.isThumbnail, let image = source as? ImageSource,
            let scaled = try reducedDecode(
                of: image, leaving: FrameRegion(x: 0, y: 0, width: displayed.width, height: displayed.height),
                times: geometry.scaledSize, context)
        {
            base = scaled
        }
        // The box pre-reduction of the thumbnail fast path is for images the codec did not shrink.
        let shrunk = base.info.width < displayed.width || base.info.height < displayed.height
        return try ResizedFrameSource(
            base, geometry: geometry, filter: filter, linear: linear, shrinkingFirst: spec.isThumbnail && !shrunk,
            limits: context.limits)
    }
}
