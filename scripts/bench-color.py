#!/usr/bin/env python3
"""scripts/bench color: what colour management costs, in one run on the same inputs.

Inputs: a 4096x4096 photo-like JPEG (quality 90, 4:2:0) tagged with the Display P3 profile of
Tests/Fixtures/color, the same JPEG without the profile (identical pixels), and a 1024x512 RGBA
logo (untagged sRGB).

1. The keep path: `convert photo.jpg out.png` and `merge photo.jpg logo.png -o out.jpg` with the
   default options, tagged against untagged. The profile rides along (no transform), so the two
   should cost the same; the merge converts the small logo into P3.
2. `--profile srgb` (convert to sRGB, written as JPEG quality 85) against `vips icc_transform`
   (libvips, Little CMS inside, relative intent as its default; perceptual here to match) and
   Pillow ImageCms.profileToProfile (perceptual), each writing JPEG quality 85: wall and CPU time.
   The pixels are compared once more written losslessly (PNG): largest and mean difference in
   levels from imgtool's.
Every row reports the median wall time and the mean CPU time (user + system) of a run. With
--busy, every tool runs while another process keeps one core busy.
usage: scripts/bench color [--trials N] [--size N] [--busy]
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import benchlib as b  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--trials", type=int, default=5)
parser.add_argument("--size", type=int, default=4096)
b.add_busy_argument(parser)
args = parser.parse_args()

b.ensure_apt("libvips-tools", "liblcms2-utils", "time")
b.ensure_pip(("PIL", "pillow"), ("numpy", "numpy"))
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

imgtool = b.build_release()
folder = b.work_folder(f"color-{args.size}")
py = sys.executable
size = args.size
p3_icc = os.path.join(b.ROOT, "Tests/Fixtures/color/display-p3.icc")

tagged = os.path.join(folder, "photo-p3.jpg")
untagged = os.path.join(folder, "photo.jpg")
logo = os.path.join(folder, "logo.png")
if not os.path.exists(tagged):
    picture = b.photo_like(size, size)
    picture.save(untagged, quality=90, subsampling=2)
    picture.save(tagged, quality=90, subsampling=2, icc_profile=open(p3_icc, "rb").read())
    pixels = np.zeros((512, 1024, 4), np.uint8)
    pixels[64:448, 64:960] = (220, 30, 40, 200)
    pixels[160:352, 200:824] = (20, 40, 200, 255)
    Image.fromarray(pixels, "RGBA").save(logo)

pillow_script = os.path.join(folder, "pillow_srgb.py")
with open(pillow_script, "w") as f:
    f.write(
        "import io, sys\nfrom PIL import Image, ImageCms\n"
        "im = Image.open(sys.argv[1]); im.load()\n"
        "src = ImageCms.ImageCmsProfile(io.BytesIO(im.info['icc_profile']))\n"
        "out = ImageCms.profileToProfile(im, src, ImageCms.createProfile('sRGB'), renderingIntent=0)\n"
        "out.save(sys.argv[2], quality=85) if sys.argv[2].endswith('.jpg') else out.save(sys.argv[2])\n")


def measure(cmd, trials):
    """Median wall seconds and mean CPU seconds (user + system) of a run of `cmd`."""
    return b.measure_with_cpu(cmd, trials=trials, cwd=folder)


stop_busy = b.keep_core_busy(args.busy)  # stopped once every tool is measured
try:
    print(f"# Colour benchmark ({b.machine()}; {args.trials} trials, median wall, mean CPU"
          f"{b.mode_note(args.busy)})\n")
    keep_rows = []
    for label, cmd_for in (
        ("convert photo.jpg out.png", lambda src: [imgtool, "convert", src, "out.png", "--force"]),
        ("merge photo.jpg logo.png -o out.jpg",
         lambda src: [imgtool, "merge", src, "logo.png", "-o", "out.jpg", "--force"]),
    ):
        plain_wall, plain_cpu = measure(cmd_for(untagged), args.trials)
        p3_wall, p3_cpu = measure(cmd_for(tagged), args.trials)
        keep_rows.append([label, f"{plain_wall * 1000:.0f} ms", f"{p3_wall * 1000:.0f} ms",
                          f"{p3_wall / plain_wall:.2f}x", f"{plain_cpu * 1000:.0f} ms", f"{p3_cpu * 1000:.0f} ms"])
    print("Keep path (default options): untagged photo against the same photo tagged Display P3:\n")
    print(b.table(["command", "untagged", "Display P3", "ratio", "CPU untagged", "CPU P3"], keep_rows) + "\n")

    tools = [
        ("imgtool --profile srgb", [imgtool, "convert", tagged, "out-imgtool.jpg", "--profile", "srgb",
                                    "--quality", "85", "--force"]),
        ("vips icc_transform", ["vips", "icc_transform", tagged, "out-vips.jpg[Q=85]", "srgb",
                                "--intent", "perceptual"]),
        ("Pillow ImageCms", [py, pillow_script, tagged, "out-pillow.jpg"]),
    ]
    rows = []
    base = None
    for name, cmd in tools:
        wall, cpu = measure(cmd, args.trials)
        base = base or wall
        rows.append([name, f"{wall * 1000:.0f} ms", f"{wall / base:.2f}x", f"{cpu * 1000:.0f} ms"])
finally:
    stop_busy()

# The same conversions written losslessly, compared with imgtool's.
subprocess.run([imgtool, "convert", tagged, "ref-imgtool.png", "--profile", "srgb", "--force"], check=True, cwd=folder)
subprocess.run(["vips", "icc_transform", tagged, "ref-vips.png", "srgb", "--intent", "perceptual"], check=True,
               cwd=folder)
subprocess.run([py, pillow_script, tagged, "ref-pillow.png"], check=True, cwd=folder)
ours = np.asarray(Image.open(os.path.join(folder, "ref-imgtool.png")).convert("RGB")).astype(int)
for row, other in zip(rows, ["ref-imgtool.png", "ref-vips.png", "ref-pillow.png"]):
    theirs = np.asarray(Image.open(os.path.join(folder, other)).convert("RGB")).astype(int)
    difference = np.abs(ours - theirs)
    row += [str(difference.max()), f"{difference.mean():.3f}"]
print("Display P3 photo to sRGB, written as JPEG quality 85 (whole process):\n")
print(b.table(["tool", "median", "vs imgtool", "CPU", "max diff (levels)", "mean diff"], rows) + "\n")
print(f"load average at the end: {open('/proc/loadavg').read().split()[0]} on {os.cpu_count()} cores")
