#!/usr/bin/env python3
"""scripts/bench jpeg-defaults: what each tool writes when asked for a JPEG and nothing else.

For each photo, the same pixels (a PNG) are written as JPEG by:
- imgtool `convert in.png out.jpg` (quality 85, 4:2:0 below quality 90), and the same with
  `--chroma 444` (imgtool's default before issue 41) and with `--quality 75` (the peers' quality);
- libvips `vips copy in.png out.jpg` (Q 75, 4:2:0 below 90, no optimised Huffman tables);
- Pillow `Image.open(in).save(out)` (quality 75, 4:2:0);
- ImageMagick `convert in.png out.jpg` (quality 92 for a PNG input, which has no quality to reuse;
  4:4:4 from 90 up).
Each row gives the file size, the butteraugli distance from the PNG (max and 3-norm, lower is
better), ssimulacra (lower is better), and the median wall time with the mean CPU time (user +
system) of a whole process. The JPEGs are decoded by the tools' common libjpeg-turbo (Pillow) for
the metrics.

Photos: the corpus's 1800x1200 landscape (exiforient_Landscape_1.jpg, when ../shared/corpus or
CORPUS=DIR has it), the 1032x1017 4:2:2 photo of Tests/Fixtures/jpeg, Pillow's hopper and flower
(from the corpus), and a 2048x1536 photo-like picture made here (smooth colour and sensor-like
grain: harder than a photo).
usage: scripts/bench jpeg-defaults [--trials N] [--busy]
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import benchlib as b  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--trials", type=int, default=5)
b.add_busy_argument(parser)
args = parser.parse_args()

b.ensure_apt("imagemagick", "libvips-tools", "time", "libjxl-devtools")
b.ensure_pip(("PIL", "pillow"), ("numpy", "numpy"))
from PIL import Image  # noqa: E402

imgtool = b.build_release()
folder = b.work_folder("jpeg-defaults")
py = sys.executable
corpus = os.environ.get("CORPUS", os.path.join(b.ROOT, "..", "shared", "corpus"))

# Inputs, as PNG: every tool starts from the same pixels.
photos = []
for name, path in [
    ("landscape 1800x1200", os.path.join(corpus, "jpeg/exiforient_Landscape_1.jpg")),
    ("fixture 1032x1017", os.path.join(b.ROOT, "Tests/Fixtures/jpeg/yuv422-1032x1017.jpg")),
    ("hopper 128x128", os.path.join(corpus, "jpeg/pillow_hopper.jpg")),
    ("flower 500x500", os.path.join(corpus, "jpeg/pillow_flower.jpg")),
]:
    if not os.path.exists(path):
        print(f"(skipping {name}: {path} not found)", file=sys.stderr)
        continue
    png = os.path.join(folder, re.sub(r"\W+", "-", name) + ".png")
    if not os.path.exists(png):
        Image.open(path).convert("RGB").save(png)
    photos.append((name, png))
synthetic = os.path.join(folder, "photo-like-2048x1536.png")
if not os.path.exists(synthetic):
    b.photo_like(2048, 1536).convert("RGB").save(synthetic)
photos.append(("photo-like 2048x1536", synthetic))


def tools(src, out):
    return [
        ("imgtool convert (q85, 4:2:0)", [imgtool, "convert", src, out + "imgtool.jpg", "--force"]),
        ("imgtool --chroma 444 (old default)",
         [imgtool, "convert", src, out + "imgtool444.jpg", "--force", "--chroma", "444"]),
        ("imgtool --quality 75", [imgtool, "convert", src, out + "imgtool75.jpg", "--force", "--quality", "75"]),
        ("vips copy (Q75)", ["vips", "copy", src, out + "vips.jpg"]),
        ("Pillow save (q75)", [py, "-c", "import sys; from PIL import Image; Image.open(sys.argv[1]).save(sys.argv[2])",
                               src, out + "pillow.jpg"]),
        ("ImageMagick convert (q92)", [b.IM, src, out + "magick.jpg"]),
    ]


def sampling(path):
    layers = Image.open(path).layer
    h, v = layers[0][1], layers[0][2]
    return {(1, 1): "4:4:4", (2, 1): "4:2:2", (2, 2): "4:2:0"}.get((h, v), f"{h}x{v}")


def butteraugli(reference, path):
    decoded = path + ".png"
    Image.open(path).convert("RGB").save(decoded, compress_level=1)
    report = subprocess.run(["butteraugli_main", reference, decoded], capture_output=True, text=True).stdout
    numbers = re.findall(r"[0-9]+\.[0-9]+", report)
    norm = re.search(r"3-norm: ([0-9.]+)", report)
    ssim = subprocess.run(["ssimulacra_main", reference, decoded], capture_output=True, text=True).stdout.strip()
    return (numbers[0] if numbers else "?"), (norm.group(1) if norm else "?"), ssim or "?"


b.keep_core_busy(args.busy)
print(f"# JPEG defaults ({b.machine()}; {args.trials} trials, median wall, mean CPU{b.mode_note(args.busy)})\n")
for name, src in photos:
    out = os.path.join(folder, re.sub(r"\W+", "-", name) + "-")
    rows = []
    base = None
    for label, cmd in tools(src, out):
        med, lo, hi, cpu = b.timed(cmd, trials=args.trials, warmup=1)
        result = cmd[3] if label.startswith("imgtool") else cmd[-1]
        size = os.path.getsize(result)
        base = base or size
        distance, norm, ssim = butteraugli(src, result)
        rows.append([label, sampling(result), f"{size / 1024:.1f} KiB", f"{size / base:.2f}x", distance, norm, ssim,
                     f"{med * 1000:.0f} ms", f"{cpu * 1000:.0f} ms"])
    print(f"{name} ({os.path.getsize(src) // 1024} KiB PNG):\n")
    print(b.table(["tool (defaults)", "chroma", "bytes", "vs imgtool", "butteraugli max", "3-norm", "ssimulacra",
                   "wall", "CPU"], rows) + "\n")
