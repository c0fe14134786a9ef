/// A Graphic Control Extension (label `0xF9`): delay, disposal and transparent index of the
/// next image.
struct GIFGraphicControl: Sendable, Hashable {
    /// The delay before the next frame, in hundredths of a second, as stored.
    var delayCentiseconds: Int
    /// The disposal method as stored, 0 to 7 (0 unspecified, 1 keep, 2 clear to background,
    /// 3 restore previous, 4-7 reserved).
    var disposalMethod: Int
    /// The palette index that leaves the canvas untouched, or `nil`.
    var transparentIndex: UInt8?

    /// Creates a control block.
    init(delayCentiseconds: Int, disposalMethod: Int, transparentIndex: UInt8?) {
        self.delayCentiseconds = delayCentiseconds
        self.disposalMethod = disposalMethod
        self.transparentIndex = transparentIndex
    }

    /// Parses the extension's first data sub-block (without its length byte): packed fields,
    /// delay (little-endian), transparent index. Returns `nil` when the block is shorter than
    /// 4 bytes; extra bytes are ignored.
    init?(parsing block: [UInt8]) {
        guard block.count >= 4 else { return nil }
        let packed = block[0]
        disposalMethod = Int(packed >> 2) & 0x07
        delayCentiseconds = Int(block[1]) | Int(block[2]) << 8
        transparentIndex = packed & 0x01 != 0 ? block[3] : nil
    }

    /// What happens to the frame's region afterwards: 2 clears it to transparent (as browsers
    /// do; the background colour is not used), 3 restores it, everything else (0, 1 and the
    /// reserved 4-7) keeps it.
    var disposal: FrameDisposal {
        switch disposalMethod {
        case 2: .background
        case 3: .previous
        default: .none
        }
    }

    /// The delay as a duration: the stored centiseconds x 10 ms, unclamped.
    var delay: Duration { .milliseconds(delayCentiseconds * 10) }

    /// The whole extension as stored: `21 F9 04`, the block, `00`.
    var serialized: [UInt8] {
        let packed = UInt8(truncatingIfNeeded: (disposalMethod & 0x07) << 2) | (transparentIndex == nil ? 0 : 1)
        return [
            0x21, 0xF9, 0x04, packed, UInt8(truncatingIfNeeded: delayCentiseconds),
            UInt8(truncatingIfNeeded: delayCentiseconds >> 8), transparentIndex ?? 0, 0x00,
        ]
    }
}
