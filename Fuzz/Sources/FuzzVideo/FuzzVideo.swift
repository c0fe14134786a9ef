import FuzzSupport

/// Any bytes, opened through the public API and decoded: the run-time loading of libavformat and
/// libavcodec, the mov and matroska demuxers and the decoders behind our C shim (the frame list,
/// limits, the YUV to RGB conversion and the turn). Seeds are small MP4 and WebM clips, so that
/// mutations reach past the sniffers. Every outcome but a crash, a hang or a leak is fine.
@main
enum FuzzVideo {
    static func main() {
        FuzzDriver.run { bytes in
            FuzzDecode.run(bytes, name: "fuzz.mp4")
        }
    }
}
