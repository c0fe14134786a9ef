#!/usr/bin/env python3
"""scripts/bench merge-anim: merging animations, imgtool merge (APNG out) against ffmpeg's
overlay filter (APNG out), Pillow (a loop over the animation's frames, alpha_composite, APNG out)
and ImageMagick 6 (-layers composite; it writes no APNG, so GIF out), whole process, in one run.

Cases: a GIF sticker on a 1920x1080 photo; a still badge on a 480x270 200-frame GIF; a 480x270
GIF with a GIF sticker (two timelines); a still badge on a 1920x1080 100-frame GIF.

Prints median wall time, ratio to imgtool, CPU time (user + system, mean of a run), output size,
frame count and peak memory. Every APNG
is decoded with Pillow and compared with imgtool's frames: Pillow's merge must match imgtool's
frame for frame (largest sample difference; imgtool's source-over is exact, Pillow's rounds), and
ffmpeg's frame count and play time are shown (it resamples every input to one frame rate).
With --busy, every tool (imgtool and the peers) runs while a spinning process keeps one core busy.
usage: scripts/bench merge-anim [--trials N] [--busy]
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import benchlib as b  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--trials", type=int, default=3)
b.add_busy_argument(parser)
args = parser.parse_args()

b.ensure_apt("imagemagick", "ffmpeg", "time")
b.ensure_pip(("PIL", "pillow"), ("numpy", "numpy"))
imgtool = b.build_release()
data = b.anim_inputs()
work = b.work_folder("merge-anim")
samples = os.path.join(b.ROOT, "samples")
photo = os.path.join(work, "photo1080.png")
if not os.path.exists(photo):
    import numpy as np
    from PIL import Image
    rng = np.random.default_rng(1)
    smooth = Image.fromarray((rng.random((9, 16, 3)) * 255).astype(np.uint8)).resize((1920, 1080), Image.BICUBIC)
    grain = np.asarray(smooth, np.float32) + rng.normal(0, 6, (1080, 1920, 3))
    Image.fromarray(np.clip(grain, 0, 255).astype(np.uint8)).save(photo)

# What a Pillow user writes: every frame of the animated input, the other input composited
# centred with alpha_composite, saved as an APNG with the animation's durations.
PILLOW = r'''
import sys
from PIL import Image, ImageSequence
bg_path, ov_path, out = sys.argv[1:4]
bg, ov = Image.open(bg_path), Image.open(ov_path)
animated_bg = getattr(bg, "is_animated", False)
anim, still = (bg, ov) if animated_bg else (ov, bg)
still = still.convert("RGBA")
frames, durations = [], []
for frame in ImageSequence.Iterator(anim):
    frame = frame.convert("RGBA")
    base, top = (frame, still) if animated_bg else (still, frame)
    canvas = base.copy()
    layer = Image.new("RGBA", canvas.size)
    layer.paste(top, ((canvas.width - top.width) // 2, (canvas.height - top.height) // 2))
    frames.append(Image.alpha_composite(canvas, layer))
    durations.append(frame.info.get("duration", 100))
frames[0].save(out, save_all=True, append_images=frames[1:], duration=durations, loop=0)
'''

cases = [
    ("GIF sticker (96x96, 24 frames) on a 1920x1080 photo", photo, os.path.join(samples, "spinner.gif")),
    ("still badge on a 480x270 GIF of 200 frames", os.path.join(data, "small.gif"), os.path.join(samples, "overlay.png")),
    ("GIF sticker on a 480x270 GIF of 200 frames (two timelines)", os.path.join(data, "small.gif"),
     os.path.join(samples, "spinner.gif")),
    ("still badge on a 1920x1080 GIF of 100 frames", os.path.join(data, "big.gif"), os.path.join(samples, "overlay.png")),
]


def ffmpeg_cmd(bg, ov, out):
    still_first = not bg.endswith(".gif")
    inputs = (["-loop", "1", "-i", bg, "-i", ov] if still_first else
              ["-i", bg] + (["-ignore_loop", "0", "-i", ov] if ov.endswith(".gif") else ["-loop", "1", "-i", ov]))
    return ["ffmpeg", "-v", "error", "-y", *inputs, "-filter_complex",
            "[0][1]overlay=(W-w)/2:(H-h)/2:shortest=1", "-plays", "0", "-f", "apng", out]


def apng_frames(path):
    """Frame count, total duration (ms) and the composited RGBA frames (numpy), as Pillow reads them."""
    import numpy as np
    from PIL import Image, ImageSequence
    im = Image.open(path)
    frames, total = [], 0
    for frame in ImageSequence.Iterator(im):
        frames.append(np.asarray(frame.convert("RGBA"), np.int16))
        total += frame.info.get("duration", 0) or 0
    return frames, total


b.keep_core_busy(args.busy)
print(f"# Merging animations ({b.machine()}; {args.trials} trials, median wall, mean CPU{b.mode_note(args.busy)})\n")
for title, bg, ov in cases:
    out = {name: os.path.join(work, f"out-{name}.{ext}") for name, ext in
           [("imgtool", "png"), ("ffmpeg", "png"), ("Pillow", "png"), ("ImageMagick", "gif")]}
    tools = [
        ("imgtool", [imgtool, "merge", bg, ov, "-o", out["imgtool"], "--force"], "APNG"),
        ("ffmpeg", ffmpeg_cmd(bg, ov, out["ffmpeg"]), "APNG, resampled"),
        ("Pillow", [sys.executable, "-c", PILLOW, bg, ov, out["Pillow"]], "APNG"),
        ("ImageMagick", [b.IM, bg, "-coalesce", "null:", "(", ov, "-coalesce", ")", "-gravity", "center",
                         "-layers", "composite", out["ImageMagick"]], "GIF"),
    ]
    two_timelines = bg.endswith(".gif") and ov.endswith(".gif")
    ours, ours_ms = apng_frames(out["imgtool"]) if os.path.exists(out["imgtool"]) else ([], 0)
    rows, base = [], None
    for name, cmd, kind in tools:
        if name == "Pillow" and two_timelines:
            rows.append([name, "not run: pairs frames by index, one timeline only", "", "", "", "", ""])
            continue
        try:
            med, lo, hi, cpu = b.timed(cmd, trials=args.trials, warmup=1 if name == "imgtool" else 0)
        except subprocess.CalledProcessError:
            rows.append([name, "fails", "", "", "", "", ""])
            continue
        base = base or med
        size = os.path.getsize(out[name]) / 1e6
        memory = b.peak_memory_mib(cmd)
        note = kind
        if name == "imgtool":
            ours, ours_ms = apng_frames(out[name])
            note += f", {len(ours)} frames, {ours_ms:.0f} ms"
        elif kind.startswith("APNG"):
            frames, total = apng_frames(out[name])
            note += f", {len(frames)} frames, {total:.0f} ms"
            if name == "Pillow" and len(frames) == len(ours):
                worst = max(int(abs(a - c).max()) for a, c in zip(frames, ours))
                note += f", max difference from imgtool {worst}"
        else:
            count = subprocess.run([b.IM, out[name], "-format", "%n\n", "info:"], capture_output=True,
                                   text=True).stdout.split()
            note += f", {count[0] if count else '?'} frames, 256 colours"
        rows.append([name, f"{med:.2f} s ({lo:.2f}-{hi:.2f})", f"{med / base:.2f}x", f"{cpu:.2f} s", f"{size:.2f} MB",
                     f"{memory:.0f} MiB", note])
    print(f"## {title}\n")
    print(b.table(["tool", "time", "vs imgtool", "CPU", "output", "peak memory", "output is"], rows))
    print()
