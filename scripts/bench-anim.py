#!/usr/bin/env python3
"""scripts/bench anim: full decode + composition of animations, imgtool against Pillow,
ImageMagick (-coalesce), ffmpeg, libvips and a plain C giflib loop, in one run; then exploding
an animation into PNG files (imgtool frames vs convert -coalesce, ffmpeg, Pillow).

Prints median wall time, frames per second, ratios to imgtool, CPU time (user + system, mean of a
run) and peak memory, as Markdown. Every peer's frame count is checked (a peer that decodes fewer
frames is reported, not ranked). With --busy, every tool (imgtool and the peers) runs while a
spinning process keeps one core busy.
usage: scripts/bench anim [--trials N] [--busy]
"""
import argparse
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import benchlib as b  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--trials", type=int, default=5)
b.add_busy_argument(parser)
args = parser.parse_args()

b.ensure_apt("imagemagick", "libvips-tools", "ffmpeg", "time", "libgif-dev")
b.ensure_pip(("PIL", "pillow"))
imgtool = b.build_release()
giflib = b.build_c("giflib_loop", "Benchmarks/giflib-loop/giflib_loop.c", ["-lgif"])
data = b.anim_inputs()
py = sys.executable
pillow_all = ("from PIL import Image, ImageSequence; im = Image.open({!r}); "
              "n = sum(1 for f in ImageSequence.Iterator(im) if f.convert('RGBA').load() is not None); print(n)")

b.keep_core_busy(args.busy)
print(f"# Animation benchmark ({b.machine()}; {args.trials} trials, median wall, mean CPU{b.mode_note(args.busy)})\n")
for name, frames in [("small.gif", 200), ("big.gif", 100), ("small.png", 200)]:
    path = os.path.join(data, name)
    info = subprocess.run([imgtool, "info", "--json", path], capture_output=True, text=True, check=True).stdout
    assert f'"frames":{frames},' in info, info[:200]
    tools = [("imgtool", [imgtool, "info", "--verify", path])]
    if name.endswith(".gif"):
        tools.append(("plain C giflib loop", [giflib, path, "copy"]))
    tools += [
        ("vips", ["vips", "avg", f"{path}[n=-1]"]),
        ("ffmpeg", ["ffmpeg", "-v", "error", "-i", path, "-f", "null", "-"]),
        ("ImageMagick -coalesce", [b.IM, path, "-coalesce", "null:"]),
        ("Pillow", [py, "-c", pillow_all.format(path)]),
    ]
    # How many frames each peer decodes, asked in a separate run: a tool that reads fewer frames
    # (ImageMagick 6 reads only an APNG's default image) is reported, not ranked.
    counters = {
        "vips": ["vipsheader", "-f", "n-pages", path],
        "ffmpeg": ["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
                   "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path],
        "ImageMagick -coalesce": [b.IM, path, "-format", "%n\n", "info:"],
        "Pillow": [py, "-c", pillow_all.format(path)],
    }
    rows = []
    base = None
    for label, cmd in tools:
        try:
            med, lo, hi, cpu = b.timed(cmd, trials=args.trials)
        except subprocess.CalledProcessError:
            rows.append([label, "failed", "", "", "", ""])
            continue
        if label in counters:
            counted = subprocess.run(counters[label], capture_output=True, text=True).stdout.split()
            if not counted or counted[0] != str(frames):
                got = counted[0] if counted else "?"
                rows.append([label, f"{med * 1000:.0f} ms", f"not comparable: decodes {got} of {frames} frames", "", "", ""])
                continue
        base = base or med
        mem = b.peak_memory_mib(cmd)
        rows.append([label, f"{med * 1000:.0f} ms", f"{frames / med:.0f}", f"{med / base:.2f}x", f"{cpu * 1000:.0f} ms",
                     f"{mem:.0f} MiB"])
    print(f"## {name} ({frames} frames, {os.path.getsize(path) // 1024} KiB): decode + compose every frame\n")
    print(b.table(["tool", "median", "frames/s", "vs imgtool", "CPU", "peak memory"], rows) + "\n")

square = os.path.join(data, "square.gif")
mem = b.peak_memory_mib([imgtool, "info", "--verify", square])
print(f"Peak memory iterating square.gif (300 frames of 1000x1000, {os.path.getsize(square) // 1024} KiB): "
      f"**{mem:.0f} MiB** (target: under 64 MiB)\n")

small = os.path.join(data, "small.gif")
out = os.path.join(b.WORK, "explode")
explode = [
    ("imgtool frames", f"rm -rf {out} && {imgtool} frames {small} -o {out}"),
    ("ImageMagick -coalesce", f"rm -rf {out} && mkdir {out} && {b.IM} {small} -coalesce {out}/f%04d.png"),
    ("ffmpeg", f"rm -rf {out} && mkdir {out} && ffmpeg -v error -i {small} {out}/f%04d.png"),
    ("Pillow", f"rm -rf {out} && mkdir {out} && {py} -c \"from PIL import Image, ImageSequence; "
               f"[f.convert('RGBA').save('{out}/f%04d.png' % i) for i, f in enumerate(ImageSequence.Iterator(Image.open('{small}')))]\""),
]
rows = []
base = None
for label, cmd in explode:
    med, lo, hi, cpu = b.timed(cmd, trials=max(3, args.trials // 2))
    count = len(os.listdir(out))
    base = base or med
    rows.append([label, f"{med * 1000:.0f} ms", f"{med / base:.2f}x", f"{cpu * 1000:.0f} ms", str(count)])
shutil.rmtree(out, ignore_errors=True)
print("## small.gif exploded to one PNG file per frame\n")
print(b.table(["tool", "median", "vs imgtool", "CPU", "files"], rows) + "\n")
