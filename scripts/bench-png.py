#!/usr/bin/env python3
"""scripts/bench png: decode and encode of 4096x4096 photo-like and screenshot-like RGBA PNGs,
imgtool against a plain C libpng program, libvips, ImageMagick and Pillow, in one run.

Each tool runs as a whole process on the same file; the decoded pixels of every tool are checked
against imgtool's (SHA-256 of RGBA8) so that nobody is fast by being wrong. Prints medians, ratios
to imgtool, CPU time (user + system, mean of a run), output sizes and peak memory as Markdown.
With --busy, every tool (imgtool and the peers) runs while a spinning process keeps one core busy.
usage: scripts/bench png [--trials N] [--size N] [--busy]
"""
import argparse
import hashlib
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import benchlib as b  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--trials", type=int, default=3)
parser.add_argument("--size", type=int, default=4096)
b.add_busy_argument(parser)
args = parser.parse_args()

b.ensure_apt("imagemagick", "libvips-tools", "time", "libpng-dev")
b.ensure_pip(("PIL", "pillow"), ("numpy", "numpy"))
imgtool = b.build_release()
baseline = b.build_c("png_baseline", "Benchmarks/c/png_baseline.c", ["-lpng16", "-lz"])
images = os.path.join(b.WORK, f"png-{args.size}")
b.sh([sys.executable, os.path.join(b.ROOT, "scripts/make-bench-images.py"), images, str(args.size)], stdout=subprocess.DEVNULL)
out = os.path.join(b.WORK, "out")
os.makedirs(out, exist_ok=True)
py = sys.executable


def rgba_hash(raw):
    data = bytearray(raw)
    for i in range(3, len(data), 4):  # the corpus convention: invisible pixels hash as (0,0,0,0)
        if data[i] == 0:
            data[i - 3:i] = b"\0\0\0"
    return hashlib.sha256(bytes(data)).hexdigest()


print(f"# PNG benchmark ({b.machine()}; {args.trials} trials, median wall, mean CPU{b.mode_note(args.busy)})\n")
b.keep_core_busy(args.busy)
for name in ["photo", "screenshot"]:
    src = os.path.join(images, f"{name}.png")
    ours = subprocess.run([imgtool, "info", "--hash", src], capture_output=True, text=True, check=True).stdout.split()[-1]
    from PIL import Image
    pil = rgba_hash(Image.open(src).convert("RGBA").tobytes())
    im = rgba_hash(subprocess.run([b.IM, src, "-depth", "8", "rgba:-"], capture_output=True, check=True).stdout)
    agree = {"Pillow": pil == ours, "ImageMagick": im == ours}
    print(f"## {name}.png ({os.path.getsize(src) // 1024} KiB): decoded pixels agree with imgtool: {agree}\n")

    decoders = [
        ("imgtool", [imgtool, "info", "--verify", src]),
        ("plain C libpng", [baseline, "decode", src]),
        ("vips", ["vips", "avg", src]),
        ("ImageMagick", [b.IM, src, "null:"]),
        ("Pillow", [py, "-c", f"from PIL import Image; Image.open({src!r}).load()"]),
    ]
    rows = []
    base = None
    for label, cmd in decoders:
        med, lo, hi, cpu = b.timed(cmd, trials=args.trials)
        mem = b.peak_memory_mib(cmd)
        base = base or med
        rows.append([label, f"{med * 1000:.0f} ms", f"{lo * 1000:.0f}-{hi * 1000:.0f}", f"{med / base:.2f}x",
                     f"{cpu * 1000:.0f} ms", f"{mem:.0f} MiB"])
    print("Decode (whole process):\n")
    print(b.table(["tool", "median", "range", "vs imgtool", "CPU", "peak memory"], rows) + "\n")

    encoders = [
        ("imgtool (default)", f"rm -rf {out}/i && {imgtool} frames {src} -o {out}/i", f"{out}/i/frame-0000.png"),
        ("imgtool --level 6", f"rm -rf {out}/i6 && {imgtool} frames {src} -o {out}/i6 --level 6", f"{out}/i6/frame-0000.png"),
        ("plain C libpng level 6", f"{baseline} encode {src} {out}/c6.png 6 0", f"{out}/c6.png"),
        ("plain C libpng level 1 + Z_RLE", f"{baseline} encode {src} {out}/c1.png 1 3", f"{out}/c1.png"),
        ("vips (default)", f"vips copy {src} {out}/v.png", f"{out}/v.png"),
        ("ImageMagick (default)", f"{b.IM} {src} {out}/m.png", f"{out}/m.png"),
        ("Pillow (default)", f"{py} -c \"from PIL import Image; Image.open('{src}').save('{out}/p.png')\"", f"{out}/p.png"),
    ]
    rows = []
    base = None
    for label, cmd, result in encoders:
        med, lo, hi, cpu = b.timed(cmd, trials=args.trials, warmup=0)
        mem = b.peak_memory_mib(cmd)
        size = os.path.getsize(result)
        check = subprocess.run([imgtool, "info", "--hash", result], capture_output=True, text=True).stdout.split()[-1]
        base = base or (med, size)
        rows.append([label, f"{med:.2f} s", f"{med / base[0]:.2f}x", f"{cpu:.2f} s", f"{size / 1e6:.1f} MB",
                     f"{size / base[1]:.2f}x", f"{mem:.0f} MiB", "yes" if check == ours else "NO"])
    print("Decode + encode to a PNG file (whole process):\n")
    print(b.table(["tool", "median", "vs imgtool", "CPU", "output", "size vs imgtool", "peak memory", "same pixels"],
                  rows) + "\n")

