#!/usr/bin/env python3
"""Writing video, issue 44's benchmark (b): a 200-frame screencast-like GIF (640x360, made here
with Pillow: a window whose text is typed line by line, a moving pointer, a scrolling pane) to
WebM and MP4, imgtool against `ffmpeg -i in.gif` with the same encoder settings:
- WebM: the same libvpx, constant quality (imgtool's default --quality 60 is cq-level 25: ffmpeg
  -crf 25 -b:v 0), cpu-used 5 (imgtool's default --level 4), good deadline, lag 25 with alt-ref
  frames, row-mt and the same tile columns, both cores, BT.709 limited range 4:2:0 tagged.
- MP4: the same libx264 (inside libavcodec59), crf 23 (imgtool's default --quality 55), preset
  medium, no B-frames (imgtool writes none), yuv420p BT.709, moov first (-movflags +faststart);
  and, for reference, ffmpeg's default with B-frames.

Prints median wall time and mean CPU time (interleaved trials), output size, peak memory, and
butteraugli (max and 3-norm) and PSNR of sampled frames against the GIF's own frames, as
Markdown. Every output is decoded by ffmpeg with libswscale's accurate rounding and chroma
interpolation (its fast path's bias would score worse than either encoder's loss). With --busy, every tool runs while a spinning process keeps one core busy.

With --av1, also MP4 as AV1 (the coding written without libavcodec's libx264, forced here with
IMGTOOL_MP4_CODEC=av1) against `ffmpeg -c:v libaom-av1` with the same settings: cq-level 25
(imgtool's default --quality 60: -crf 25 -b:v 0), good-quality cpu-used 6 (imgtool's default
--level 4), screen-content tuning, lag 35, row-mt, the same tile columns, both cores, a key frame
every 240 frames at most, BT.709 limited range 4:2:0 tagged, moov first.

With --sweep, also the MP4 rate-quality curves: imgtool at the --quality of each CRF from 19 to 27
against ffmpeg at that CRF (-bf 0, the same x264 settings), size and scores at each point. One
point alone says little on this clip: most of it is still, so the key frame's coding of a few
sharp edges lasts the whole clip, and which edges x264 codes badly changes from one CRF to the
next, and with a change of one level in a few chroma samples (ffmpeg's libswscale and imgtool
round and filter the chroma differently), for both tools.
usage: scripts/bench-video-write.py [--trials N] [--busy] [--sweep] [--av1]
"""
import argparse
import math
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import benchlib as b  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--trials", type=int, default=3)
parser.add_argument("--sweep", action="store_true", help="also MP4 at CRF 19 to 27, imgtool against ffmpeg")
parser.add_argument("--av1", action="store_true", help="also MP4 as AV1, imgtool against ffmpeg's libaom-av1")
b.add_busy_argument(parser)
args = parser.parse_args()

b.ensure_apt("ffmpeg", "time", "libjxl-tools")
b.ensure_pip(("PIL", "pillow"))
imgtool = b.build_release()
work = os.path.join(b.WORK, "video-write")
os.makedirs(work, exist_ok=True)
W, H, FRAMES = 640, 360, 200


def make_gif(path):
    from PIL import Image, ImageDraw
    words = "the quick brown fox jumps over a lazy dog while imgtool writes webm video".split()
    frames = []
    for n in range(FRAMES):
        im = Image.new("RGB", (W, H), (236, 238, 242))
        d = ImageDraw.Draw(im)
        d.rectangle([0, 0, W, 28], fill=(52, 56, 68))
        for i, c in enumerate([(237, 95, 87), (245, 190, 79), (98, 197, 84)]):
            d.ellipse([10 + 20 * i, 8, 22 + 20 * i, 20], fill=c)
        d.rectangle([0, 28, 150, H], fill=(45, 48, 58))
        for i in range(12):
            d.text((12, 40 + 24 * i), f"file_{i:02}.swift", fill=(200, 205, 215) if i != n // 40 else (255, 255, 255))
        typed = n * 3
        for line in range(14):
            text = " ".join(words[(line * 3 + k) % len(words)] for k in range(6))
            shown = max(0, min(len(text), typed - line * 40))
            if shown:
                y = 40 + 22 * line - max(0, n - 150) * 2
                if 28 < y < H - 12:
                    d.text((170, y), text[:shown], fill=(30, 34, 44))
                    if shown < len(text) and (n // 5) % 2 == 0:
                        d.rectangle([170 + 6 * shown, y, 172 + 6 * shown, y + 12], fill=(30, 34, 44))
        px, py = 200 + int(180 * math.sin(n / 25)), 200 + int(90 * math.cos(n / 31))
        d.polygon([(px, py), (px, py + 18), (px + 5, py + 13), (px + 12, py + 13)], fill=(0, 0, 0))
        d.rectangle([480, 300, 600, 336], fill=(40, 120, 220) if (n // 20) % 2 else (60, 150, 240))
        d.text((510, 312), "Run", fill=(255, 255, 255))
        frames.append(im.convert("P", palette=Image.ADAPTIVE, colors=128))
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=50, loop=0, optimize=False)


gif = os.path.join(work, "screencast.gif")
if not os.path.exists(gif):
    make_gif(gif)
ours = os.path.join(work, "imgtool.webm")
theirs = os.path.join(work, "ffmpeg.webm")
ours_mp4 = os.path.join(work, "imgtool.mp4")
theirs_mp4 = os.path.join(work, "ffmpeg.mp4")
theirs_bf = os.path.join(work, "ffmpeg-bframes.mp4")
bt709 = ["-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p", "-colorspace", "bt709",
         "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv"]
x264 = ["-c:v", "libx264", "-crf", "23", "-preset", "medium", "-threads", "0", "-movflags", "+faststart"]
tiles = 0
while tiles < 6 and (W >> (tiles + 1)) >= 256:
    tiles += 1
threads = str(min(os.cpu_count() or 1, 8))
cmds = {
    "imgtool": [imgtool, "convert", gif, ours, "--force"],
    "ffmpeg libvpx-vp9": [
        "ffmpeg", "-v", "error", "-y", "-i", gif, "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
        "-c:v", "libvpx-vp9", "-crf", "25", "-b:v", "0", "-deadline", "good", "-cpu-used", "5", "-row-mt", "1",
        "-tile-columns", str(tiles), "-threads", threads, "-lag-in-frames", "25", "-auto-alt-ref", "1",
        "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv", theirs],
    "imgtool mp4": [imgtool, "convert", gif, ours_mp4, "--force"],
    "ffmpeg libx264 -bf 0": ["ffmpeg", "-v", "error", "-y", "-i", gif, *bt709, *x264, "-bf", "0", theirs_mp4],
    "ffmpeg libx264 (B-frames)": ["ffmpeg", "-v", "error", "-y", "-i", gif, *bt709, *x264, theirs_bf],
}
ours_av1 = os.path.join(work, "imgtool-av1.mp4")
theirs_av1 = os.path.join(work, "ffmpeg-av1.mp4")
if args.av1:
    cmds["imgtool mp4 av1"] = ["env", "IMGTOOL_MP4_CODEC=av1", imgtool, "convert", gif, ours_av1, "--force"]
    cmds["ffmpeg libaom-av1"] = [
        "ffmpeg", "-v", "error", "-y", "-i", gif, *bt709, "-c:v", "libaom-av1", "-crf", "25", "-b:v", "0",
        "-usage", "good", "-cpu-used", "6", "-row-mt", "1", "-tile-columns", str(tiles), "-threads", threads,
        "-lag-in-frames", "35", "-g", "240", "-aom-params", "tune-content=screen", "-movflags", "+faststart",
        theirs_av1]

b.keep_core_busy(args.busy)
samples, failures = b.run_interleaved(cmds, trials=args.trials)
for name, error in failures.items():
    print(f"{name} failed: {error}", file=sys.stderr)


def frames_rgb(path):
    # libswscale's fast YUV to RGB path rounds with a bias (1 to 2 levels darker) that alone scores
    # butteraugli 3-norm 2.3 on a lossless 4:2:0 copy of the GIF, hiding the encoders'
    # differences; accurate_rnd+full_chroma_int scores 0.58 there, for either tool's conversion.
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-fps_mode", "passthrough", "-sws_flags",
                          "accurate_rnd+full_chroma_int", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         capture_output=True, check=True).stdout
    size = W * H * 3
    return [out[i:i + size] for i in range(0, len(out), size)]


def psnr(one, two):
    squares = sum((x - y) ** 2 for a, c in zip(one, two) for x, y in zip(a, c))
    count = sum(len(a) for a in one)
    return 10 * math.log10(255 * 255 / (squares / count)) if squares else float("inf")


def save_png(raw, path):
    from PIL import Image
    Image.frombytes("RGB", (W, H), raw).save(path)


reference = frames_rgb(gif)
sampled = [20, 60, 100, 140, 180]
for index in sampled:
    save_png(reference[index], os.path.join(work, f"ref-{index}.png"))


def scores(path):
    """Butteraugli max and 3-norm (each the mean over the sampled frames) and PSNR of `path`."""
    decoded = frames_rgb(path)
    maxima, norms = [], []
    for index in sampled:
        distorted = os.path.join(work, f"{os.path.basename(path)}-{index}.png")
        save_png(decoded[index], distorted)
        text = subprocess.run(["butteraugli_main", os.path.join(work, f"ref-{index}.png"), distorted, "--pnorm", "3"],
                              capture_output=True, text=True, check=True).stdout
        maxima.append(float(text.split()[0]))
        norms.append(float(re.search(r"3-norm: ([0-9.]+)", text).group(1)))
    quality = psnr([reference[i] for i in sampled], [decoded[i] for i in sampled])
    return len(decoded), statistics.fmean(maxima), statistics.fmean(norms), quality


rows = []
outputs = [("imgtool", ours, "imgtool"), ("ffmpeg libvpx-vp9", theirs, "imgtool"),
           ("imgtool mp4", ours_mp4, "imgtool mp4"), ("ffmpeg libx264 -bf 0", theirs_mp4, "imgtool mp4"),
           ("ffmpeg libx264 (B-frames)", theirs_bf, "imgtool mp4"), ("imgtool mp4 av1", ours_av1, "imgtool mp4 av1"),
           ("ffmpeg libaom-av1", theirs_av1, "imgtool mp4 av1")]
for name, path, against in outputs:
    if name not in samples:
        continue
    base = statistics.median(w for w, _ in samples[against]) if against in samples else None
    walls = [w for w, _ in samples[name]]
    cpu = statistics.fmean(c for _, c in samples[name])
    count, maximum, norm, quality = scores(path)
    peak = b.peak_memory_mib(cmds[name])
    wall = statistics.median(walls)
    rows.append([name, f"{wall:.2f} s", f"{wall / base:.2f}x" if base else "", f"{cpu:.2f} s",
                 f"{os.path.getsize(path) / 1024:.1f} KiB", f"{peak:.0f} MiB", count,
                 f"{maximum:.3f}", f"{norm:.3f}", f"{quality:.2f} dB"])

print(f"# GIF to WebM and MP4 ({b.machine()}; {args.trials} trials, median wall, mean CPU{b.mode_note(args.busy)})\n")
print(f"Input: {FRAMES}-frame {W}x{H} screencast GIF, {os.path.getsize(gif) / 1024:.0f} KiB. Butteraugli and "
      f"PSNR of frames {', '.join(map(str, sampled))} against the GIF's.\n")
print(b.table(["tool", "wall", "vs imgtool", "CPU", "size", "peak memory", "frames", "butteraugli max (mean)",
               "butteraugli 3-norm (mean)", "PSNR"], rows))


if args.sweep:
    def quality_for(crf):
        """imgtool's --quality that MP4Writer maps to `crf`: crf = (100 - quality) x 51 / 100, rounded."""
        return next(q for q in range(101) if ((100 - q) * 51 + 50) // 100 == crf)

    sweep = []
    for crf in range(19, 28):
        ours_at, theirs_at = os.path.join(work, f"imgtool-crf{crf}.mp4"), os.path.join(work, f"ffmpeg-crf{crf}.mp4")
        b.sh([imgtool, "convert", gif, ours_at, "--quality", str(quality_for(crf)), "--force"])
        b.sh(["ffmpeg", "-v", "error", "-y", "-i", gif, *bt709, *x264[:2], "-crf", str(crf), *x264[4:], "-bf", "0",
              theirs_at])
        row = [crf, quality_for(crf)]
        for path in (ours_at, theirs_at):
            _, maximum, norm, quality = scores(path)
            row += [f"{os.path.getsize(path) / 1024:.1f} KiB", f"{maximum:.2f} / {norm:.3f} / {quality:.2f} dB"]
        sweep.append(row)
    print("\n## MP4 at each CRF (butteraugli max / 3-norm / PSNR)\n")
    print(b.table(["CRF", "imgtool --quality", "imgtool size", "imgtool scores", "ffmpeg -bf 0 size", "ffmpeg scores"],
                  sweep))
