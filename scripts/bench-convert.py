#!/usr/bin/env python3
"""scripts/bench convert: GIF to APNG (and APNG to APNG), imgtool convert against ffmpeg's APNG
muxer, gif2apng, and Pillow, whole process, in one run.

Prints median wall time, ratio to imgtool, CPU time (user + system, mean of a run), output size,
and whether each output decodes (with Pillow) to the input's frames: "exact" when every frame
matches the input's composited frames, otherwise the frame count and the largest sample
difference. With --busy, every tool (imgtool and the peers) runs while a spinning process keeps one core busy.
usage: scripts/bench convert [--trials N] [--busy]
"""
import argparse
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import benchlib as b  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--trials", type=int, default=3)
b.add_busy_argument(parser)
args = parser.parse_args()

b.ensure_apt("ffmpeg", "time")
subprocess.run(["apt-get", "install", "-y", "-qq", "gif2apng"], capture_output=True)  # optional peer
b.ensure_pip(("PIL", "pillow"), ("numpy", "numpy"))
imgtool = b.build_release()
data = b.anim_inputs()
work = b.work_folder("convert")

PILLOW = ("import sys; from PIL import Image; im = Image.open(sys.argv[1]); "
          "im.save(sys.argv[2], format='PNG', save_all=True, loop=im.info.get('loop', 0))")


def frames(path):
    import numpy as np
    from PIL import Image, ImageSequence
    return [np.asarray(f.convert("RGBA"), np.int16) for f in ImageSequence.Iterator(Image.open(path))]


def verdict(reference, path):
    try:
        got = frames(path)
    except Exception as error:  # a peer's output Pillow cannot read
        return f"unreadable ({error})"
    if len(got) != len(reference):
        return f"{len(got)} of {len(reference)} frames"
    worst = max(int(abs(a - c).max()) for a, c in zip(got, reference))
    return "exact" if worst == 0 else f"max difference {worst}"


inputs = [
    ("spinner.gif (96x96, 24 frames)", os.path.join(b.ROOT, "samples/spinner.gif")),
    ("small.gif (480x270, 200 frames)", os.path.join(data, "small.gif")),
    ("big.gif (1920x1080, 100 frames)", os.path.join(data, "big.gif")),
    ("small.png, APNG (480x270, 200 frames)", os.path.join(data, "small.png")),
]
b.keep_core_busy(args.busy)
print(f"# Converting to APNG ({b.machine()}; {args.trials} trials, median wall, mean CPU{b.mode_note(args.busy)})\n")
for title, path in inputs:
    reference = frames(path)
    out = lambda name: os.path.join(work, f"{name}.png")  # noqa: E731
    tools = [
        ("imgtool", [imgtool, "convert", path, out("imgtool"), "--force"]),
        ("ffmpeg", ["ffmpeg", "-v", "error", "-y", "-i", path, "-plays", "0", "-f", "apng", out("ffmpeg")]),
    ]
    if path.endswith(".gif") and shutil.which("gif2apng"):
        tools.append(("gif2apng", ["gif2apng", "-z0", path, out("gif2apng")]))
    tools.append(("Pillow", [sys.executable, "-c", PILLOW, path, out("Pillow")]))
    rows, base = [], None
    for name, cmd in tools:
        try:
            med, lo, hi, cpu = b.timed(cmd, trials=args.trials, warmup=1 if name == "imgtool" else 0)
        except subprocess.CalledProcessError:
            rows.append([name, "fails", "", "", "", ""])
            continue
        base = base or med
        rows.append([name, f"{med * 1000:.0f} ms ({lo * 1000:.0f}-{hi * 1000:.0f})", f"{med / base:.2f}x",
                     f"{cpu * 1000:.0f} ms", f"{os.path.getsize(out(name)) / 1e3:.0f} KB", verdict(reference, out(name))])
    print(f"## {title}, input {os.path.getsize(path) / 1e3:.0f} KB\n")
    print(b.table(["tool", "time", "vs imgtool", "CPU", "output", "frames"], rows))
    print()
