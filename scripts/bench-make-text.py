#!/usr/bin/env python3
"""scripts/bench make-text: a caption on an animation (issue 43's `scripts/bench make`, part b):
a white caption with a black stroke at the bottom of every frame of a 200-frame 480x270 GIF,
written as a GIF, by imgtool (`convert --text`), ImageMagick 6 (`-coalesce -annotate ...
-layers Optimize`) and ffmpeg (`drawtext`, then palettegen/paletteuse, the usual way to a good
GIF), whole process, in one run, the same font (DejaVu Sans), size and stroke.

Quality: each tool's GIF against its own lossless rendering of the same caption (the same
command writing PNG frames), so that what is scored is what writing the GIF lost, not how each
draws text: butteraugli (max-norm score), mean and worst of sampled frames. Prints median wall
time, CPU time (user + system, mean of a run), output size, frame count and peak memory.
With --busy, every tool runs while a spinning process keeps one core busy.
usage: scripts/bench make-text [--trials N] [--samples K] [--busy]
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import benchlib as b  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--trials", type=int, default=3)
parser.add_argument("--samples", type=int, default=5, help="frames scored by butteraugli")
b.add_busy_argument(parser)
args = parser.parse_args()

b.ensure_apt("imagemagick", "ffmpeg", "time", "fonts-dejavu-core")
b.ensure_pip(("PIL", "pillow"), ("numpy", "numpy"))
import numpy as np  # noqa: E402
from PIL import Image, ImageSequence  # noqa: E402

imgtool = b.build_release()
data = b.anim_inputs()
gif = os.path.join(data, "small.gif")
work = b.work_folder("make-text")
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
TEXT = "When the build is green"
SIZE, STROKE, MARGIN = 32, 3, 10


def imgtool_cmd(out):
    return [imgtool, "convert", gif, out, "--force", "--text", TEXT, "--font", FONT, "--font-size", str(SIZE),
            "--color", "white", "--stroke-color", "black", "--stroke-width", str(STROKE), "--gravity", "south",
            "--offset", f"0,-{MARGIN}"]


def magick_cmd(out, optimize=True):
    # ImageMagick strokes centred on the outline and over the fill: the usual meme recipe draws
    # the stroked text (twice the width, to reach as far outside), then the fill again on top.
    return [b.IM, gif, "-coalesce", "-font", FONT, "-pointsize", str(SIZE), "-gravity", "south",
            "-fill", "white", "-stroke", "black", "-strokewidth", str(2 * STROKE), "-annotate", f"+0+{MARGIN}", TEXT,
            "-stroke", "none", "-annotate", f"+0+{MARGIN}", TEXT,
            *(["-layers", "Optimize"] if optimize else []), out]


def ffmpeg_filter():
    return (f"drawtext=fontfile={FONT}:text='{TEXT}':fontsize={SIZE}:fontcolor=white:borderw={STROKE}:"
            f"bordercolor=black:x=(w-text_w)/2:y=h-text_h-{MARGIN}")


def ffmpeg_cmd(out):
    return ["ffmpeg", "-v", "error", "-y", "-i", gif, "-filter_complex",
            f"[0]{ffmpeg_filter()},split[a][b];[a]palettegen[p];[b][p]paletteuse", "-loop", "0", out]


def gif_frames(path):
    im = Image.open(path)
    return [np.asarray(frame.convert("RGB")) for frame in ImageSequence.Iterator(im)]


def references(name):
    """The tool's own lossless rendering: its frames as RGB arrays."""
    folder = os.path.join(work, f"ref-{name}")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    if name == "imgtool":
        out = os.path.join(folder, "all.png")
        b.sh(imgtool_cmd(out), stdout=subprocess.DEVNULL)
        im = Image.open(out)
        return [np.asarray(frame.convert("RGB")) for frame in ImageSequence.Iterator(im)]
    if name == "ImageMagick":
        b.sh(magick_cmd(os.path.join(folder, "f-%03d.png"), optimize=False), stdout=subprocess.DEVNULL)
    else:
        b.sh(["ffmpeg", "-v", "error", "-y", "-i", gif, "-vf", ffmpeg_filter(), os.path.join(folder, "f-%03d.png")])
    return [np.asarray(Image.open(p).convert("RGB")) for p in sorted(glob.glob(os.path.join(folder, "f-*.png")))]


def butteraugli(ref, dist):
    a, c = os.path.join(work, "ba-ref.png"), os.path.join(work, "ba-dist.png")
    Image.fromarray(ref).save(a)
    Image.fromarray(dist).save(c)
    text = subprocess.run(["butteraugli_main", a, c], capture_output=True, text=True).stdout
    numbers = re.findall(r"[-+]?\d*\.?\d+(?:e[-+]?\d+)?", text)
    return float(numbers[0]) if numbers else float("nan")


b.keep_core_busy(args.busy)
print(f"# A caption on a GIF ({b.machine()}; {args.trials} trials, median wall, mean CPU{b.mode_note(args.busy)})\n")
print(f'"{TEXT}", DejaVu Sans {SIZE} px, white, {STROKE} px black stroke, bottom centre, on {os.path.basename(gif)} '
      "(480x270, 200 frames), written as GIF.\n")
tools = [("imgtool", imgtool_cmd), ("ImageMagick", magick_cmd), ("ffmpeg", ffmpeg_cmd)]
rows, base = [], None
for name, make in tools:
    out = os.path.join(work, f"out-{name}.gif")
    cmd = make(out)
    try:
        med, lo, hi, cpu = b.timed(cmd, trials=args.trials, warmup=1)
    except subprocess.CalledProcessError:
        rows.append([name, "fails", "", "", "", "", "", ""])
        continue
    base = base or med
    frames = gif_frames(out)
    refs = references(name)
    count = min(len(frames), len(refs))
    picks = sorted({round(i * (count - 1) / max(1, args.samples - 1)) for i in range(args.samples)}) if count else []
    scores = [butteraugli(refs[i], frames[i]) for i in picks]
    memory = b.peak_memory_mib(cmd)
    rows.append([name, f"{med:.2f} s ({lo:.2f}-{hi:.2f})", f"{med / base:.2f}x", f"{cpu:.2f} s",
                 f"{os.path.getsize(out) / 1e6:.2f} MB", f"{np.mean(scores):.2f} / {max(scores):.2f}" if scores else "",
                 f"{memory:.0f} MiB", f"{len(frames)} frames"])
print(b.table(["tool", "time", "vs imgtool", "CPU", "output", "butteraugli mean / worst", "peak memory", "frames"],
              rows))
