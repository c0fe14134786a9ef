/// The colour profile and XMP packet a GIF can carry in application extensions: `ICCRGBG1012`
/// (the profile in the data sub-blocks, as ImageMagick and Photoshop write it) and `XMP DataXMP`
/// (the packet written raw, so that its bytes read as sub-blocks, ended by a 258-byte "magic
/// trailer" that brings any reader back to the block terminator).
struct GIFMetadataExtensions {
    /// The first profile found.
    private(set) var icc: [UInt8]?
    /// The first XMP packet found.
    private(set) var xmp: [UInt8]?

    static let iccIdentifier = Array("ICCRGBG1012".utf8)
    static let xmpIdentifier = Array("XMP DataXMP".utf8)

    /// Whether an application extension whose first block is `identifier` is one of these.
    static func isMetadata(_ identifier: [UInt8]) -> Bool {
        identifier == iccIdentifier || identifier == xmpIdentifier
    }

    /// Takes an application extension's blocks (each without its length byte); `true` when it
    /// was one of these.
    mutating func add(_ blocks: [[UInt8]]) -> Bool {
        guard let identifier = blocks.first, Self.isMetadata(identifier) else { return false }
        if identifier == Self.iccIdentifier {
            if icc == nil { icc = Array(blocks.dropFirst().joined()) }
        } else if xmp == nil {
            // The packet's own bytes were read as length bytes and data: put the lengths back.
            var raw: [UInt8] = []
            for block in blocks.dropFirst() {
                raw.append(UInt8(block.count))
                raw += block
            }
            // The trailer: 0x01, then 0xFF down to 0x00 (the last is the terminator, not kept).
            let trailer: [UInt8] = [0x01, 0xFF, 0xFE]
            if let end = raw.indices.first(where: { raw[$0...].starts(with: trailer) }) {
                raw.removeSubrange(end...)
            }
            xmp = raw
        }
        return true
    }
}
