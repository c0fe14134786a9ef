/// Columns and rows of a grid: `--montage COLSxROWS` and `--sheet COLSxROWS`, either number
/// left out to be computed from the count of cells to fill (`3x`: three columns, as many rows
/// as needed; `x2`: two rows).
public struct GridLayout: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Columns, or `nil` to compute from the rows.
    public var columns: Int?
    /// Rows, or `nil` to compute from the columns.
    public var rows: Int?

    /// The most columns or rows a grid takes.
    public static let maxSide = 65_536

    /// A grid of `columns` by `rows` (one may be `nil`, not both).
    public init(columns: Int?, rows: Int?) {
        precondition(columns != nil || rows != nil, "a grid needs columns or rows")
        self.columns = columns
        self.rows = rows
    }

    /// Parses `COLSxROWS`, `COLSx` or `xROWS` (each 1 to 65,536).
    /// - Parameters:
    ///   - text: the value as typed.
    ///   - option: the option named in errors (`--montage`).
    /// - Throws: ``ImgToolError`` `invalidArgument` naming the option and the value.
    public init(parsing text: String, option: String) throws(ImgToolError) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        func side(_ part: Substring) -> Int?? {
            if part.isEmpty { return .some(nil) }
            guard part.allSatisfy(\.isASCII), let value = Int(part), value >= 1, value <= Self.maxSide else {
                return nil
            }
            return .some(value)
        }
        guard parts.count == 2, let columns = side(parts[0]), let rows = side(parts[1]), columns != nil || rows != nil
        else {
            throw ImgToolError(
                .invalidArgument,
                "\(option) \(text): expected COLSxROWS (2x1), COLSx (3x: rows as needed) or xROWS, each 1 to \(Self.maxSide)"
            )
        }
        self.init(columns: columns, rows: rows)
    }

    private enum CodingKeys: String, CodingKey { case columns, rows }

    /// Decodes a grid, checked as ``init(parsing:option:)`` checks one.
    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        let columns = try values.decodeIfPresent(Int.self, forKey: .columns)
        let rows = try values.decodeIfPresent(Int.self, forKey: .rows)
        guard columns != nil || rows != nil,
            [columns, rows].allSatisfy({ ($0 ?? 1) >= 1 && ($0 ?? 1) <= Self.maxSide })
        else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "a grid needs columns or rows, each 1 to \(Self.maxSide)"))
        }
        self.init(columns: columns, rows: rows)
    }

    /// The grid as written: `2x1`, `3x`, `x2`.
    public var description: String { "\(columns.map(String.init) ?? "")x\(rows.map(String.init) ?? "")" }

    /// Columns and rows that hold `count` cells.
    /// - Parameters:
    ///   - count: the cells to fill (at least one is made).
    ///   - option: the option named in errors (`--montage`).
    ///   - what: what the cells are, for the error (`inputs`, `frames`).
    /// - Throws: ``ImgToolError`` `invalidArgument` when a grid of both sides holds fewer than `count`.
    public func resolved(for count: Int, option: String, what: String) throws(ImgToolError) -> (
        columns: Int, rows: Int
    ) {
        let count = max(count, 1)
        switch (columns, rows) {
        case (let columns?, let rows?):
            guard columns * rows >= count else {
                throw ImgToolError(
                    .invalidArgument,
                    "\(option) \(self) holds \(columns * rows) cells, and there are \(count) \(what) (write \(columns)x to add rows)"
                )
            }
            return (columns, rows)
        case (let columns?, nil): return (columns, (count + columns - 1) / columns)
        case (nil, let rows?): return ((count + rows - 1) / rows, rows)
        case (nil, nil): preconditionFailure("a grid needs columns or rows")
        }
    }
}
