/// `--sheet COLSx` or `--sheet COLSxROWS`: an animation's frames laid out as one still sprite
/// sheet, frame `i` at column `i % COLS`, row `i / COLS`, each cell the animation's canvas, no
/// gap; cells past the last frame are transparent. A still makes a sheet of one cell.
///
/// ``SpriteSheetSource/layout`` says where each frame went and how long it is shown: what
/// `--sheet-json FILE` writes (``SpriteSheetLayout/json(imageName:)``).
public struct SheetOperation: FrameOperation, Hashable, Codable {
    /// Columns, rows or both.
    public var grid: GridLayout
    /// Where `--sheet-json` writes the sheet's description (``SpriteSheetLayout``), or `nil`.
    /// The step itself writes nothing: the command that runs the chain does.
    public var descriptionFile: String?

    /// A sheet of `grid`.
    public init(grid: GridLayout, descriptionFile: String? = nil) {
        self.grid = grid
        self.descriptionFile = descriptionFile
    }

    /// This step applied to `source` (see ``FrameOperation/apply(to:context:)``): a
    /// ``SpriteSheetSource``.
    /// - Throws: ``ImgToolError`` `invalidArgument` when a grid of both sides holds fewer cells
    ///   than there are frames; `tooLarge` when the sheet passes the context's `maxPixels`.
    public func apply(to source: any FrameSource, context: OperationContext) async throws(ImgToolError)
        -> any FrameSource
    {
        try SpriteSheetSource(source, grid: grid, limits: context.limits)
    }
}

/// Where each frame of a sprite sheet is and how long it is shown.
public struct SpriteSheetLayout: Sendable, Hashable {
    /// Columns of the sheet.
    public var columns: Int
    /// Rows of the sheet.
    public var rows: Int
    /// The size of one cell: the animation's canvas.
    public var cell: PixelSize
    /// Each frame's box on the sheet, in frame order.
    public var boxes: [FrameRegion]
    /// Each frame's delay as players show it (a stored 10 ms or less is 100 ms, ``DelayPolicy/browser``).
    public var delays: [Duration]

    /// The sheet's size.
    public var size: PixelSize { PixelSize(width: columns * cell.width, height: rows * cell.height) }

    /// The layout as JSON in the "JSON array" shape sprite tools and game engines read (Aseprite's
    /// and TexturePacker's export, which Phaser, PixiJS and CSS sprite generators load):
    /// `{"frames":[{"filename":…,"frame":{"x","y","w","h"},"rotated":false,"trimmed":false,
    /// "spriteSourceSize":…,"sourceSize":…,"duration":MS}…],"meta":{"app","image","size","scale"}}`,
    /// durations in whole milliseconds.
    /// - Parameter imageName: the sheet's file name, for `meta.image`.
    public func json(imageName: String) -> String {
        func box(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> String {
            "{\"x\":\(x),\"y\":\(y),\"w\":\(w),\"h\":\(h)}"
        }
        let frames = boxes.indices.map { index in
            let region = boxes[index]
            let duration = Int(delays[index].milliseconds.rounded())
            return "    {\"filename\":\"\(index)\",\"frame\":\(box(region.x, region.y, region.width, region.height)),"
                + "\"rotated\":false,\"trimmed\":false,"
                + "\"spriteSourceSize\":\(box(0, 0, cell.width, cell.height)),"
                + "\"sourceSize\":{\"w\":\(cell.width),\"h\":\(cell.height)},\"duration\":\(duration)}"
        }
        return "{\"frames\":[\n" + frames.joined(separator: ",\n") + "\n],\n\"meta\":{\"app\":\"imgtool\",\"image\":"
            + JSONText.quoted(imageName)
            + ",\"format\":\"RGBA8888\",\"size\":{\"w\":\(size.width),\"h\":\(size.height)},"
            + "\"scale\":\"1\",\"columns\":\(columns),\"rows\":\(rows)}}\n"
    }
}

/// An animation's frames on one still sprite sheet (``SheetOperation``). Its one frame is made
/// when read: every frame of the animation is read in order and drawn into its cell, so memory
/// is the sheet and one frame.
public struct SpriteSheetSource: FrameSource {
    /// The animation laid out.
    public let base: any FrameSource
    /// Where each frame went.
    public let layout: SpriteSheetLayout
    /// One frame, the sheet; the animation's colour description; plays once.
    public let info: ImageInfo

    /// Every cell is covered when the animation is opaque and fills the grid.
    public var isOpaque: Bool { base.isOpaque && layout.boxes.count == layout.columns * layout.rows }

    /// The sheet of `base`'s frames in `grid`.
    /// - Throws: ``ImgToolError`` `invalidArgument` when a grid of both sides holds fewer cells
    ///   than there are frames; `tooLarge` when the sheet passes `limits`' `maxPixels`.
    public init(_ base: any FrameSource, grid: GridLayout, limits: DecodingLimits = .default) throws(ImgToolError) {
        let source = base.info
        let (columns, rows) = try grid.resolved(for: source.frameCount, option: "--sheet", what: "frames")
        let cell = PixelSize(width: source.width, height: source.height)
        let (width, o1) = columns.multipliedReportingOverflow(by: cell.width)
        let (height, o2) = rows.multipliedReportingOverflow(by: cell.height)
        guard !o1, !o2 else {
            throw ImgToolError(
                .tooLarge, "a sheet of \(columns)x\(rows) frames of \(cell.width)x\(cell.height) is too large")
        }
        try limits.checkPixels(width: width, height: height, what: "the sprite sheet")
        let asStored = !source.delaysArePlayTimes && source.isAnimated
        layout = SpriteSheetLayout(
            columns: columns, rows: rows, cell: cell,
            boxes: source.frames.indices.map { index in
                FrameRegion(
                    x: index % columns * cell.width, y: index / columns * cell.height, width: cell.width,
                    height: cell.height)
            },
            delays: source.frames.map { frame in
                asStored ? DelayPolicy.browser.effectiveDelay(frame.delay, format: source.format) : frame.delay
            })
        self.base = base
        var info = source.withCanvas(PixelSize(width: width, height: height))
        info.frames = [
            FrameInfo(
                index: 0, delay: .zero, region: FrameRegion(x: 0, y: 0, width: width, height: height), disposal: .none,
                blend: .source)
        ]
        info.plays = 1
        info.loopValue = nil
        info.delaysArePlayTimes = false
        info.colorType = .rgba
        self.info = info
    }

    /// A reader that makes the sheet when its one frame is asked for.
    public func makeFrameReader(depth: SampleDepth?) throws(ImgToolError) -> any FrameReader {
        let (base, layout, info) = (base, layout, info)
        let sheetDepth = depth ?? (base.info.bitDepth > 8 ? .sixteen : .eight)
        return OneFrameReader { () throws(ImgToolError) in
            try Self.drawSheet(of: base, layout: layout, info: info, depth: sheetDepth)
        }
    }

    /// Reads every frame of `base` and draws it into its box of a new sheet at `depth`.
    private static func drawSheet(
        of base: any FrameSource, layout: SpriteSheetLayout, info: ImageInfo, depth: SampleDepth
    )
        throws(ImgToolError) -> Frame
    {
        let reader = try base.makeFrameReader(depth: depth)
        var sheet = PixelBuffer(width: info.width, height: info.height, depth: depth)
        var drawn = 0
        while let frame = try reader.nextFrame() {
            if Task.isCancelled { throw ImgToolError(.cancelled, "cancelled at frame \(frame.index) of the sheet") }
            guard layout.boxes.indices.contains(frame.index) else { break }
            let image = frame.image.depth == depth ? frame.image : frame.image.converted(to: depth)
            if drawn == 0 { sheet.metadata = image.metadata }
            let box = layout.boxes[frame.index]
            sheet.draw(image, at: (box.x, box.y), blend: .source)
            drawn += 1
        }
        guard drawn == layout.boxes.count else {
            throw ImgToolError(.truncated, "the data ends before frame \(drawn)")
        }
        return Frame(info: info.frames[0], image: sheet)
    }
}
