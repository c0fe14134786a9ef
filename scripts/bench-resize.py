#!/usr/bin/env python3
"""scripts/bench resize: imgtool resize against vipsthumbnail / vips, Pillow, ImageMagick, ffmpeg
and gifsicle, whole process, on the same inputs in one run.

Cases:
- a 4096x4096 PNG (made here, deterministic) to 512 wide;
- the same picture as a quality-90 4:2:0 JPEG to 512 wide (PNG out, so the score is the resize's:
  imgtool and vipsthumbnail decode at a reduced DCT scale, Pillow's thumbnail uses draft mode);
- big.gif (1920x1080, 100 frames; scripts/make-anim-images.py) to 480 wide;
- small.png (APNG, 480x270, 200 frames) to 50%.

Quality: butteraugli_main (max score and 3-norm; lower is better) of each output against a
float64 Lanczos3 reference computed here with numpy (separable, premultiplied alpha, the kernel
sampled at pixel centres and stretched by the reduction, as in every Lanczos3 resizer); for
animations, the worst over four frames spread through the animation, each compared with the
reference of the input's composited frame. GIF outputs are palette-quantized by their writers,
so their scores include the palette's error; for the GIF case imgtool and ffmpeg write both a
GIF and an APNG (lossless), and the table says each output's format.
CPU time (user + system, all threads, mean of a run) is printed beside the wall time: on a shared
machine it is the steadier measure of the work done. With --busy, every tool (imgtool and the
peers) runs while a spinning process keeps one core busy.
usage: scripts/bench resize [--trials N] [--busy]
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import benchlib as b  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--trials", type=int, default=3)
b.add_busy_argument(parser)
args = parser.parse_args()

b.ensure_apt("ffmpeg", "time", "libvips-tools", "gifsicle", "imagemagick", "libjxl-devtools")
b.ensure_pip(("PIL", "pillow"), ("numpy", "numpy"))
import numpy as np  # noqa: E402
from PIL import Image, ImageDraw, ImageSequence  # noqa: E402

imgtool = b.build_release()
data = b.anim_inputs()
work = b.work_folder("resize")


def make_big_png(path, side=4096):
    """A photo-like 4096x4096 RGB PNG: gradients, discs, thin lines and mild noise."""
    if os.path.exists(path):
        return
    rng = np.random.default_rng(4096)
    y, x = np.mgrid[0:side, 0:side].astype(np.float32) / side
    base = np.stack([200 * x + 30, 180 * y + 40, 120 + 80 * np.sin(6 * x + 4 * y)], axis=-1)
    img = Image.fromarray(np.clip(base + rng.normal(0, 6, base.shape), 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(img)
    for k in range(60):
        cx, cy, r = rng.integers(0, side, 2).tolist() + [int(rng.integers(20, 400))]
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=tuple(int(v) for v in rng.integers(0, 256, 3)))
    for k in range(200):
        x0, y0, x1, y1 = rng.integers(0, side, 4).tolist()
        draw.line((x0, y0, x1, y1), fill=tuple(int(v) for v in rng.integers(0, 256, 3)), width=int(rng.integers(1, 6)))
    img.save(path, compress_level=6)


# --- the float64 Lanczos3 reference -------------------------------------------------------------

def weights(n_in, n_out):
    scale = n_in / n_out
    stretch = max(scale, 1.0)
    centers = (np.arange(n_out) + 0.5) * scale
    d = (np.arange(n_in)[None, :] + 0.5 - centers[:, None]) / stretch
    w = np.where(np.abs(d) < 3, np.sinc(d) * np.sinc(d / 3), 0.0)
    return w / w.sum(axis=1, keepdims=True)


def reference(rgba, width, height):
    """`rgba` (h, w, 4) uint8 resized to width x height in float64, premultiplied; uint8 RGBA."""
    f = rgba.astype(np.float64) / 255
    a = f[..., 3:4]
    pre = np.concatenate([f[..., :3] * a, a], axis=-1)
    h, w = f.shape[:2]
    wy, wx = weights(h, height), weights(w, width)
    out = (wy @ pre.reshape(h, w * 4)).reshape(height, w, 4)  # matrix products: BLAS, not einsum loops
    out = (wx @ out.transpose(1, 0, 2).reshape(w, height * 4)).reshape(width, height, 4).transpose(1, 0, 2)
    alpha = np.clip(out[..., 3:4], 0, 1)
    color = np.where(alpha > 0, np.clip(out[..., :3], 0, alpha) / np.maximum(alpha, 1e-12), 0)
    return np.round(np.concatenate([color, alpha], axis=-1) * 255).astype(np.uint8)


REFERENCES = {}


def reference_of(frames, index, size):
    """The reference of frame `index`, computed once per case."""
    key = (id(frames), index, size)
    if key not in REFERENCES:
        REFERENCES[key] = reference(frames[index], *size)
    return REFERENCES[key]


def frames_of(path, picks=None):
    """The composited frames of `path` as RGBA arrays: all of them, or {index: frame} for `picks`."""
    im = Image.open(path)
    if picks is None:
        return [np.asarray(f.convert("RGBA")) for f in ImageSequence.Iterator(im)]
    return {i: np.asarray(f.convert("RGBA")) for i, f in enumerate(ImageSequence.Iterator(im)) if i in picks}


def frame_count(path):
    return getattr(Image.open(path), "n_frames", 1)


def butteraugli(ref, out):
    """(max, 3-norm) of butteraugli_main on two RGBA arrays (flattened onto white: opaque inputs)."""
    def save(array, name):
        path = os.path.join(work, name)
        Image.fromarray(array[..., :3]).save(path)
        return path
    result = subprocess.run(["butteraugli_main", save(ref, "q-ref.png"), save(out, "q-out.png")],
                            capture_output=True, text=True)
    numbers = re.findall(r"[-+]?\d*\.\d+|\d+", result.stdout)
    norm = re.search(r"3-norm:\s*([\d.]+)", result.stdout)
    return float(numbers[0]), float(norm.group(1)) if norm else float("nan")


def quality(source_frames, count, out_path, size, picks):
    try:
        n = frame_count(out_path)
        got = frames_of(out_path, set(picks))
    except Exception as error:  # an output Pillow cannot read
        return f"unreadable ({error})"
    if n != count:
        return f"{n} of {count} frames"
    first = got[picks[0]]
    if first.shape[1] != size[0] or first.shape[0] != size[1]:
        return f"{first.shape[1]}x{first.shape[0]}, not {size[0]}x{size[1]}"
    scores = [butteraugli(reference_of(source_frames, i, size), got[i]) for i in picks]
    return f"{max(s[0] for s in scores):.2f} / {max(s[1] for s in scores):.2f}"


PIL_RESIZE = """import sys
from PIL import Image, ImageSequence
im = Image.open(sys.argv[1]); w = int(sys.argv[3]); mode = sys.argv[4]
def one(f):
    f = f.convert('RGBA') if 'A' in f.mode or f.mode == 'P' else f.convert('RGB')
    h = round(f.height * w / f.width)
    if mode == 'thumbnail':
        f = f.copy(); f.thumbnail((w, h)); return f
    return f.resize((w, h), Image.Resampling.LANCZOS)
if getattr(im, 'n_frames', 1) == 1:
    one(im).save(sys.argv[2])
else:
    frames = [one(f) for f in ImageSequence.Iterator(im)]
    durations = [f.info.get('duration', 20) for f in ImageSequence.Iterator(Image.open(sys.argv[1]))]
    frames[0].save(sys.argv[2], save_all=True, append_images=frames[1:], duration=durations,
                   loop=im.info.get('loop', 0))
"""

big_png = os.path.join(work, "big4096.png")
make_big_png(big_png)
big_jpg = os.path.join(work, "big4096.jpg")
if not os.path.exists(big_jpg):
    Image.open(big_png).convert("RGB").save(big_jpg, quality=90, subsampling=2)
cases = [
    ("4096x4096 PNG to 512 wide", big_png, 512, 512, ".png"),
    ("4096x4096 JPEG to 512 wide", big_jpg, 512, 512, ".png"),
    ("big.gif (1920x1080, 100 frames) to 480 wide", os.path.join(data, "big.gif"), 480, 270, ".gif"),
    ("small.png APNG (480x270, 200 frames) to 50%", os.path.join(data, "small.png"), 240, 135, ".png"),
]
b.keep_core_busy(args.busy)
print(f"# Resizing ({b.machine()}; {args.trials} trials, median wall, mean CPU{b.mode_note(args.busy)}; "
      "quality: butteraugli max / 3-norm "
      "against a float64 Lanczos3 reference, lower is better)\n")
for title, path, width, height, ext in cases:
    animated = ext == ".gif" or "APNG" in title
    out = lambda name, e=ext: os.path.join(work, f"{name}{e}")  # noqa: E731
    width_arg = "50%" if "50%" in title else str(width)
    tools = [("imgtool", [imgtool, "resize", path, out("imgtool", ".png"), "--width", width_arg, "--force"],
              out("imgtool", ".png"))]
    if ext == ".gif":
        tools = [
            ("imgtool (GIF)", [imgtool, "resize", path, out("imgtool"), "--width", width_arg, "--force"],
             out("imgtool")),
            ("imgtool (APNG)", [imgtool, "resize", path, out("imgtool", ".png"), "--width", width_arg, "--force"],
             out("imgtool", ".png")),
        ]
    if "50%" not in title and ext != ".gif":
        # The thumbnail form: the same size here, with the fast path for large reductions.
        tools.append(("imgtool --size (thumbnail)",
                      [imgtool, "resize", path, out("imgtool-thumb", ".png"), "--size", str(width), "--force"],
                      out("imgtool-thumb", ".png")))
    if not animated:
        tools += [
            ("vipsthumbnail", ["vipsthumbnail", path, "--size", f"{width}x", "-o", out("vipsthumbnail")],
             out("vipsthumbnail")),
            ("vips resize", ["vips", "resize", path, out("vips"), str(width / 4096)], out("vips")),
        ]
    elif ext == ".gif":
        tools += [
            ("vips thumbnail", ["vips", "thumbnail", f"{path}[n=-1]", out("vips"), str(width), "--height", "100000"],
             out("vips")),
            ("gifsicle", ["gifsicle", "--resize-width", str(width), path, "-o", out("gifsicle")], out("gifsicle")),
            ("gifsicle lanczos3", ["gifsicle", "--resize-width", str(width), "--resize-method", "lanczos3", path,
                                   "-o", out("gifsicle-l3")], out("gifsicle-l3")),
        ]
    tools += [
        ("Pillow thumbnail", [sys.executable, "-c", PIL_RESIZE, path, out("pil-thumb"), str(width), "thumbnail"],
         out("pil-thumb")),
        ("Pillow resize(LANCZOS)", [sys.executable, "-c", PIL_RESIZE, path, out("pil"), str(width), "lanczos"],
         out("pil")),
        ("ImageMagick -resize",
         [b.IM, path, *(["-coalesce"] if animated else []), "-resize", f"{width}x",
          *(["-layers", "optimize"] if animated else []), ("apng:" if ext == ".png" and animated else "") + out("im")],
         out("im")),
        ("ffmpeg lanczos", ["ffmpeg", "-v", "error", "-y", "-i", path, "-vf", f"scale={width}:-1:flags=lanczos",
                            *(["-plays", "0", "-f", "apng"] if animated and ext == ".png" else []),
                            *(["-frames:v", "1", "-update", "1"] if not animated else []), out("ffmpeg")],
         out("ffmpeg")),
    ]
    if ext == ".gif":
        tools.append(("ffmpeg lanczos (APNG)",
                      ["ffmpeg", "-v", "error", "-y", "-i", path, "-vf", f"scale={width}:-1:flags=lanczos",
                       "-plays", "0", "-f", "apng", out("ffmpeg", ".png")], out("ffmpeg", ".png")))
    n = frame_count(path)
    picks = sorted({0, n // 4, n // 2, (3 * n) // 4}) if n > 1 else [0]
    source = frames_of(path, set(picks))
    rows, base = [], None
    for name, cmd, output in tools:
        try:
            med, lo, hi, cpu = b.timed(cmd, trials=args.trials, warmup=1 if name.startswith("imgtool") else 0)
        except subprocess.CalledProcessError:
            rows.append([name, "fails", "", "", "", ""])
            continue
        base = base or med
        rows.append([name, f"{med * 1000:.0f} ms ({lo * 1000:.0f}-{hi * 1000:.0f})", f"{med / base:.2f}x",
                     f"{cpu * 1000:.0f} ms",
                     f"{os.path.basename(output).split('.')[-1]}, {os.path.getsize(output) / 1e3:.0f} KB",
                     quality(source, n, output, (width, height), picks)])
    print(f"## {title}, input {os.path.getsize(path) / 1e3:.0f} KB\n")
    print(b.table(["tool", "wall time", "vs imgtool", "CPU time", "output", "butteraugli max / 3-norm"], rows))
    print()
