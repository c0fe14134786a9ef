#!/usr/bin/env python3
"""scripts/bench pipeline: whole multi-step jobs in one command, imgtool against its peers.

(a) Photo: a 4032x3024 photo-like JPEG (quality 90, 4:2:0) with EXIF orientation 6 and a 600x300
    RGBA logo. Job: upright, crop 16:9 centred (3024x1701 at 0,1165 once upright), resize to 1200
    wide (Lanczos3), the logo resized to 120 px wide in the south-east corner, JPEG quality 85.
    Peers: ImageMagick 6 (one command), the vips command line (a sequence of commands through
    temporary .v files, timed as one shell command), pyvips and Pillow (one script each).
    Quality: butteraugli (max and 3-norm, lower is better) against a float64 reference computed
    here with numpy (separable Lanczos3 on premultiplied RGBA, source-over in float).
(b) Clip: a 480x270, 200-frame GIF (40 ms a frame). Job: crop 400x240+40+15, rotate 90 clockwise,
    resize 50%, speed 2x, GIF again. Peers: gifsicle, ImageMagick, ffmpeg (palettegen/paletteuse).
    Reports each output's frame count and total duration so a wrong speed shows.
Every row reports the median wall time and the mean CPU time (user + system) of a run, the peak
memory of one run, and the output size; the tools of a table are run in turn, trial by trial, so
that a slow spell of a shared machine falls on all of them alike. With --busy, every tool runs while another process keeps
one core busy.
usage: scripts/bench pipeline [--trials N] [--busy]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import benchlib as b  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--trials", type=int, default=3)
b.add_busy_argument(parser)
args = parser.parse_args()

b.ensure_apt("imagemagick", "libvips-tools", "gifsicle", "ffmpeg", "time", "libjxl-devtools")
b.ensure_pip(("PIL", "pillow"), ("numpy", "numpy"))
import numpy as np  # noqa: E402
from PIL import Image, ImageDraw, ImageFont, ImageSequence  # noqa: E402

pyvips_note = None
try:
    b.ensure_apt("libvips-dev")
    b.ensure_pip(("pyvips", "pyvips"))
    subprocess.run([sys.executable, "-c", "import pyvips; pyvips.Image.black(1, 1)"], check=True,
                   capture_output=True)
    have_pyvips = True
except Exception as error:  # noqa: BLE001
    have_pyvips = False
    pyvips_note = f"pyvips skipped: could not be installed or loaded ({error})"

imgtool = b.build_release()
folder = b.work_folder("pipeline")
py = sys.executable

# ---------------------------------------------------------------------------------------------
# Inputs.
W, H = 4032, 3024
photo = os.path.join(folder, "photo.jpg")
if not os.path.exists(photo):
    img = b.photo_like(W, H)
    exif = Image.Exif()
    exif[0x0112] = 6
    img.save(photo + ".tmp.jpg", quality=90, subsampling=2, exif=exif.tobytes())
    os.replace(photo + ".tmp.jpg", photo)
logo = os.path.join(folder, "logo.png")
if not os.path.exists(logo):
    img = Image.new("RGBA", (600, 300), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((12, 12, 588, 288), radius=30, fill=(255, 255, 255, 150))
    d.rounded_rectangle((22, 22, 578, 278), radius=24, outline=(220, 30, 40, 255), width=8)
    d.text((50, 70), "imgtool", fill=(200, 20, 30, 255), font=ImageFont.load_default(size=90))
    d.text((50, 190), "(c) 2026 sample", fill=(20, 40, 160, 230), font=ImageFont.load_default(size=44))
    img.save(logo)

clip = os.path.join(folder, "clip.gif")
if not os.path.exists(clip):
    cw, ch, count = 480, 270, 200
    yy, xx = np.mgrid[0:ch, 0:cw].astype(np.float32)
    frames = []
    for i in range(count):
        t = i / count
        bg = np.stack([xx / cw * 200 + 30 * np.sin(2 * np.pi * t),
                       yy / ch * 180 + 40,
                       (xx + yy) / (cw + ch) * 150 + 80 * t], -1)
        frame = Image.fromarray(np.clip(bg, 0, 255).astype(np.uint8), "RGB")
        d = ImageDraw.Draw(frame)
        for k, colour in enumerate(((230, 40, 40), (40, 200, 60), (50, 80, 230), (240, 220, 30))):
            cx = (60 + 97 * k + i * (3 + k)) % (cw + 80) - 40
            cy = 135 + int(90 * np.sin(2 * np.pi * (t * (k + 1) + k / 4)))
            r = 22 + 6 * k
            if k % 2:
                d.rectangle((cx - r, cy - r, cx + r, cy + r), fill=colour, outline=(0, 0, 0), width=2)
            else:
                d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour, outline=(255, 255, 255), width=2)
        frames.append(frame.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE))
    frames[0].save(clip + ".tmp.gif", save_all=True, append_images=frames[1:], duration=40, loop=0)
    os.replace(clip + ".tmp.gif", clip)


def run_quiet(cmd):
    return subprocess.run(cmd, shell=isinstance(cmd, str), cwd=folder, capture_output=True, text=True)


# ---------------------------------------------------------------------------------------------
# (a) Photo job.
CX, CY, CW, CH = 0, 1165, 3024, 1701
OUT_W = 1200
LOGO_W = 120

# The vips command line: find the actual sizes once (resize may round), then time the sequence.
scale = OUT_W / CW
lscale = LOGO_W / 600
vips_prep = (f"vips autorot photo.jpg t1.v && vips extract_area t1.v t2.v {CX} {CY} {CW} {CH} && "
             f"vips resize t2.v t3.v {scale!r} --kernel lanczos3 && "
             f"vips resize logo.png l.v {lscale!r} --kernel lanczos3")
run_quiet(vips_prep)
try:
    vw = int(run_quiet("vipsheader -f width t3.v").stdout)
    vh = int(run_quiet("vipsheader -f height t3.v").stdout)
    lw = int(run_quiet("vipsheader -f width l.v").stdout)
    lh = int(run_quiet("vipsheader -f height l.v").stdout)
except ValueError:
    vw, vh, lw, lh = OUT_W, 675, LOGO_W, 60
vips_cmd = ["sh", "-c", vips_prep + f" && vips composite2 t3.v l.v t4.v over --x {vw - lw} --y {vh - lh} && "
            "vips flatten t4.v t5.v && vips copy t5.v out-vips.jpg[Q=85] && rm -f t1.v t2.v t3.v t4.v t5.v l.v"]

pillow_script = os.path.join(folder, "pillow_pipeline.py")
with open(pillow_script, "w") as f:
    f.write(
        "import sys\nfrom PIL import Image, ImageOps\n"
        "im = ImageOps.exif_transpose(Image.open(sys.argv[1]))\n"
        "w, h = im.size; ch = w * 9 // 16; y = (h - ch) // 2\n"
        "im = im.crop((0, y, w, y + ch)).resize((1200, round(ch * 1200 / w)), Image.LANCZOS).convert('RGBA')\n"
        "logo = Image.open(sys.argv[2]).convert('RGBA')\n"
        "lw = im.width // 10; logo = logo.resize((lw, round(logo.height * lw / logo.width)), Image.LANCZOS)\n"
        "im.alpha_composite(logo, (im.width - logo.width, im.height - logo.height))\n"
        "im.convert('RGB').save(sys.argv[3], quality=85)\n")
pyvips_script = os.path.join(folder, "pyvips_pipeline.py")
with open(pyvips_script, "w") as f:
    f.write(
        "import sys, pyvips\n"
        "im = pyvips.Image.new_from_file(sys.argv[1], access='sequential').autorot()\n"
        "w, h = im.width, im.height; ch = w * 9 // 16; y = (h - ch) // 2\n"
        "im = im.extract_area(0, y, w, ch).resize(1200 / w, kernel='lanczos3')\n"
        "logo = pyvips.Image.new_from_file(sys.argv[2])\n"
        "logo = logo.resize((im.width // 10) / logo.width, kernel='lanczos3')\n"
        "im = im.composite2(logo, 'over', x=im.width - logo.width, y=im.height - logo.height).flatten()\n"
        "im.write_to_file(sys.argv[3] + '[Q=85]')\n")

photo_tools = [
    ("imgtool convert", [imgtool, "convert", "photo.jpg", "out-imgtool.jpg", "--crop", "16:9", "--resize", "1200",
                         "--overlay", "logo.png", "--gravity", "southeast", "--overlay-width", "10%",
                         "--quality", "85", "--force"], "out-imgtool.jpg"),
    ("ImageMagick 6 (one command)",
     [b.IM, "photo.jpg", "-auto-orient", "-crop", f"{CW}x{CH}+{CX}+{CY}", "+repage", "-filter", "Lanczos",
      "-resize", f"{OUT_W}x", "(", "logo.png", "-filter", "Lanczos", "-resize", f"{LOGO_W}x", ")",
      "-gravity", "southeast", "-composite", "-quality", "85", "out-im.jpg"], "out-im.jpg"),
    ("vips CLI (7 commands, .v files)", vips_cmd, "out-vips.jpg"),
    ("pyvips (one script)", [py, pyvips_script, "photo.jpg", "logo.png", "out-pyvips.jpg"], "out-pyvips.jpg"),
    ("Pillow (one script)", [py, pillow_script, "photo.jpg", "logo.png", "out-pillow.jpg"], "out-pillow.jpg"),
]
if not have_pyvips:
    photo_tools = [t for t in photo_tools if not t[0].startswith("pyvips")]


def lanczos_matrix(n_in, n_out):
    """Rows of Lanczos3 weights (n_out x n_in): support scaled by the reduction, pixel centres at +0.5."""
    factor = max(n_in / n_out, 1.0)
    centres = (np.arange(n_out) + 0.5) * n_in / n_out
    x = (np.arange(n_in)[None, :] + 0.5 - centres[:, None]) / factor
    weights = np.where(np.abs(x) < 3, np.sinc(x) * np.sinc(x / 3), 0.0)
    return weights / weights.sum(axis=1, keepdims=True)


def resize_premultiplied(rgba, out_w, out_h):
    a = rgba[..., 3:4] / 255.0
    pre = np.concatenate([rgba[..., :3] * a, rgba[..., 3:4]], -1)
    wy = lanczos_matrix(rgba.shape[0], out_h)
    wx = lanczos_matrix(rgba.shape[1], out_w)
    return np.einsum("yi,ijc->yjc", wy, np.einsum("xj,ijc->ixc", wx, pre))  # premultiplied, 0-255


reference = os.path.join(folder, "ref.png")
if not os.path.exists(reference) or os.path.getmtime(reference) < os.path.getmtime(photo):
    src = np.asarray(Image.open(photo).convert("RGB"), np.float64)  # stored pixels, orientation not applied
    src = np.rot90(src, k=-1)  # orientation 6: rotate 90 clockwise
    src = src[CY:CY + CH, CX:CX + CW]
    src = np.concatenate([src, np.full(src.shape[:2] + (1,), 255.0)], -1)
    out_h = round(CH * OUT_W / CW)
    base_img = resize_premultiplied(src, OUT_W, out_h)
    logo_px = np.asarray(Image.open(logo).convert("RGBA"), np.float64)
    logo_h = round(logo_px.shape[0] * LOGO_W / logo_px.shape[1])
    small = resize_premultiplied(logo_px, LOGO_W, logo_h)
    alpha = np.clip(small[..., 3:4] / 255.0, 0, 1)
    region = base_img[out_h - logo_h:, OUT_W - LOGO_W:, :3]
    base_img[out_h - logo_h:, OUT_W - LOGO_W:, :3] = small[..., :3] + region * (1 - alpha)
    Image.fromarray(np.clip(np.round(base_img[..., :3]), 0, 255).astype(np.uint8), "RGB").save(reference)


def butteraugli(path):
    report = run_quiet(["butteraugli_main", reference, path])
    text = report.stdout + report.stderr
    numbers = re.findall(r"^\s*([0-9]+\.[0-9]+)\s*$", text, re.M)
    norm = re.search(r"3-norm: ([0-9.]+)", text)
    return (numbers[0] if numbers else "?"), (norm.group(1) if norm else "?")


def clip_info(path):
    with Image.open(path) as im:
        frames = getattr(im, "n_frames", 1)
        total = 0
        for i in range(frames):
            im.seek(i)
            total += im.info.get("duration", 0)
        return frames, total, im.size


stop_busy = b.keep_core_busy(args.busy)  # stopped once every tool is measured
notes = [pyvips_note] if pyvips_note else []


def timed_all(tools):
    """For each (name, cmd, out) of `tools`, measured in turn (b.run_interleaved): the median wall
    and mean CPU time of a run, peak memory and the output's path, or None (with a note) when the
    tool failed."""
    samples, failures = b.run_interleaved({name: cmd for name, cmd, _ in tools}, trials=args.trials, cwd=folder)
    results = {}
    for name, cmd, out in tools:
        if name in failures:
            failed = run_quiet(cmd)
            notes.append(f"{name} failed: {(failed.stderr or str(failures[name])).strip()[:300]}")
            results[name] = None
            continue
        walls, cpus = [wall for wall, _ in samples[name]], [cpu for _, cpu in samples[name]]
        results[name] = (statistics.median(walls), statistics.fmean(cpus), b.peak_memory_mib(cmd, cwd=folder),
                         os.path.join(folder, out))
    return results


try:
    print(f"# Pipeline benchmark ({b.machine()}; {args.trials} trials, median wall, mean CPU"
          f"{b.mode_note(args.busy)})\n")
    rows = []
    base = None
    runs = timed_all(photo_tools)
    for name, cmd, out in photo_tools:
        if (run := runs[name]) is None:
            continue
        wall, cpu, mem, path = run
        base = base or wall
        with Image.open(path) as im:
            dims = f"{im.width}x{im.height}"
        rows.append([name, f"{wall * 1000:.0f} ms", f"{wall / base:.2f}x", f"{cpu * 1000:.0f} ms",
                     f"{mem:.0f} MiB", f"{os.path.getsize(path) / 1024:.0f} KiB", dims, *butteraugli(path)])
    print(f"(a) Photo: 4032x3024 JPEG (orientation 6, {os.path.getsize(photo) // 1024} KiB) + 600x300 RGBA logo: "
          "upright, crop 16:9, resize 1200 wide (Lanczos3), logo 10% south-east, JPEG q85 (whole process):\n")
    print(b.table(["tool", "median", "vs imgtool", "CPU", "peak memory", "output", "size", "butteraugli max",
                   "3-norm"], rows) + "\n")

    clip_tools = [
        ("imgtool convert", [imgtool, "convert", "clip.gif", "out-imgtool.gif", "--crop", "400x240+40+15",
                             "--rotate", "90", "--resize", "50%", "--speed", "2", "--force"], "out-imgtool.gif"),
        ("gifsicle", ["gifsicle", "--crop", "40,15+400x240", "--rotate-90", "--scale", "0.5", "-d2", "clip.gif",
                      "-o", "out-gifsicle.gif"], "out-gifsicle.gif"),
        ("ImageMagick 6", [b.IM, "clip.gif", "-coalesce", "-crop", "400x240+40+15", "+repage", "-rotate", "90",
                           "-resize", "50%", "-set", "delay", "2", "-layers", "optimize", "out-im.gif"],
         "out-im.gif"),
        ("ffmpeg (palettegen/paletteuse)",
         ["ffmpeg", "-v", "error", "-y", "-i", "clip.gif", "-filter_complex",
          "crop=400:240:40:15,transpose=1,scale=iw/2:ih/2,setpts=0.5*PTS,split[a][b];[a]palettegen[p];[b][p]paletteuse",
          "out-ffmpeg.gif"], "out-ffmpeg.gif"),
    ]
    frames_in, duration_in, _ = clip_info(clip)

    # Quality: five frames of each output, found by time, against a Pillow Lanczos reference of the
    # same steps on the source frame (crop, turn clockwise, halve).
    picks = [10, 60, 110, 160, 199]
    references = {}
    for index, frame in enumerate(ImageSequence.Iterator(Image.open(clip))):
        if index in picks:
            turned = frame.convert("RGB").crop((40, 15, 440, 255)).transpose(Image.Transpose.ROTATE_270)
            references[index] = turned.resize((120, 200), Image.Resampling.LANCZOS)

    def clip_quality(path):
        shown, elapsed = [], 0
        for frame in ImageSequence.Iterator(Image.open(path)):
            shown.append((elapsed, frame.convert("RGB").copy()))
            elapsed += frame.info.get("duration", 0)
        scores = []
        for index in picks:
            at = index * duration_in / frames_in / 2  # the output plays twice as fast
            frame = [image for (start, image) in shown if start <= at][-1]
            ref_png, out_png = os.path.join(folder, "q-ref.png"), os.path.join(folder, "q-out.png")
            references[index].save(ref_png)
            frame.save(out_png)
            result = run_quiet(["butteraugli_main", ref_png, out_png])
            scores.append(float(result.stdout.split()[0]))
        return f"{sum(scores) / len(scores):.2f}", f"{max(scores):.2f}"

    rows = []
    base = None
    runs = timed_all(clip_tools)
    for name, cmd, out in clip_tools:
        if (run := runs[name]) is None:
            continue
        wall, cpu, mem, path = run
        base = base or wall
        frames, duration, (ow, oh) = clip_info(path)
        rows.append([name, f"{wall * 1000:.0f} ms", f"{wall / base:.2f}x", f"{cpu * 1000:.0f} ms",
                     f"{mem:.0f} MiB", f"{os.path.getsize(path) / 1024:.0f} KiB", f"{ow}x{oh}", str(frames),
                     f"{duration / 1000:.2f} s",
                     # ffmpeg's fps filter drops and duplicates frames: its frames cannot be matched.
                     *(clip_quality(path) if frames == frames_in else ("n/a", "n/a"))])
    print(f"(b) Clip: 480x270 GIF, {frames_in} frames, {duration_in / 1000:.2f} s "
          f"({os.path.getsize(clip) // 1024} KiB): crop 400x240+40+15, rotate 90, resize 50%, speed 2x, GIF "
          "(expected: 120x200, same frame count, half the duration):\n")
    print(b.table(["tool", "median", "vs imgtool", "CPU", "peak memory", "output", "size", "frames", "duration",
                   "butteraugli mean", "max"], rows) + "\n")
    print("butteraugli: five frames found by time against Pillow's Lanczos of the same steps on the source frame\n")
finally:
    stop_busy()

for note in notes:
    print(f"note: {note}")
print(f"load average at the end: {open('/proc/loadavg').read().split()[0]} on {os.cpu_count()} cores")
