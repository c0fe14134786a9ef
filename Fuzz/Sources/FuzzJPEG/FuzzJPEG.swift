import FuzzSupport
import ImgToolKit

/// Any bytes, given to the EXIF orientation reader on their own (as an APP1 payload and as a bare
/// TIFF structure), then opened through the public API and decoded, upright or as stored and at
/// full or reduced size (chosen from the input's length); an input that decodes is written as a
/// JPEG, which must decode to the same size. Every outcome but a crash, a hang or a leak is fine.
@main
enum FuzzJPEG {
    static func main() {
        FuzzDriver.run { bytes in
            let size = bytes.count
            _ = EXIFReader.orientation(inAPP1: bytes)
            _ = EXIFReader.orientation(inTIFF: bytes[...])
            // EXIF-shaped inputs reach the directory walk: a fuzzed body behind a valid prefix.
            _ = EXIFReader.orientation(inAPP1: Array("Exif".utf8) + [0, 0] + bytes)
            let minimum = [nil, PixelSize(width: 1, height: 1), PixelSize(width: 17, height: 9)][size % 3]
            let options = DecodingOptions(autoOrient: size % 2 == 0, minimumSize: minimum)
            _ = FuzzDecode.run(bytes, name: "fuzz.jpg", options: options)
            FuzzDecode.jpegRoundTrip(bytes, name: "fuzz.jpg", quality: 1 + size % 100, progressive: size % 5 == 0)
        }
    }
}
