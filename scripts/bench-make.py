#!/usr/bin/env python3
"""scripts/bench make: making animations (issue 43), imgtool convert IN... OUT against its peers,
whole process, in one run.

(a) A folder of N still PNGs (default 300 of 640x360: a photo panned, with a moving disc and a
    frame counter) joined into one animation at 25 frames per second:
    GIF:  imgtool convert FOLDER out.gif --fps 25; ImageMagick convert -delay 4 *.png out.gif;
          ffmpeg -framerate 25 -i f-%03d.png with palettegen/paletteuse (the usual two-pass recipe,
          one process).
    WebP: imgtool convert FOLDER out.webp --fps 25 (lossless, the inputs are), and with --quality 75;
          img2webp -d 40 (lossless), and -lossy -q 75.
(b) A caption (--text): a white caption with a black stroke at the bottom of every frame of a
    200-frame 480x270 GIF (scripts/make-anim-images.py's small.gif), written as a GIF, by imgtool
    (convert --text), ImageMagick 6 (-coalesce -annotate ... -layers Optimize) and ffmpeg
    (drawtext, then palettegen/paletteuse), the same font (DejaVu Sans), size and stroke. Each
    tool's GIF is scored against that tool's own lossless rendering of the same caption (the same
    command writing PNG frames), so that what is scored is what writing the GIF lost, not how each
    draws text. `scripts/bench make-text` runs this part alone.
(c) A 2x1 montage of two 100-frame GIFs (480x270, two halves of scripts/make-anim-images.py's
    small.gif): imgtool convert a.gif b.gif out.gif --montage 2x1; ImageMagick's side-by-side
    recipe (-coalesce, -extent, -layers composite); ffmpeg's hstack with palettegen/paletteuse.

Prints median wall time, ratio to imgtool (wall, then CPU), CPU time (user + system, mean of a
run), output size, peak memory, frame count, and butteraugli (mean and worst of a few frames
sampled across the animation, each decoded by Pillow and compared with the frame it was made
from; lower is better).
With --busy, every tool runs while a spinning process keeps one core busy.
usage: scripts/bench make [--trials N] [--count N] [--samples K] [--busy] [--only a|b|c]
"""
import argparse
import glob
import math
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import benchlib as b  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--trials", type=int, default=3)
parser.add_argument("--count", type=int, default=300, help="stills in (a), default 300")
parser.add_argument("--samples", type=int, default=4, help="frames scored by butteraugli in each output")
parser.add_argument("--only", choices=["a", "b", "c"], help="run one part")
b.add_busy_argument(parser)
args = parser.parse_args()

b.ensure_apt("imagemagick", "ffmpeg", "time", "webp", "fonts-dejavu-core")
b.ensure_pip(("PIL", "pillow"), ("numpy", "numpy"))
imgtool = b.build_release()
work = b.work_folder("make")
W, H = 640, 360


def make_stills(folder, count):
    """`count` PNGs f-000.png ...: a 1280x720 photo-like picture panned across, a disc moving over
    it and a counter, as frames exported from a video are (made once; deterministic)."""
    from PIL import ImageDraw
    if len(glob.glob(os.path.join(folder, "f-*.png"))) == count:
        return
    os.makedirs(folder, exist_ok=True)
    for old in glob.glob(os.path.join(folder, "f-*.png")):
        os.remove(old)
    photo = b.photo_like(2 * W, 2 * H, seed=43)
    for i in range(count):
        t = i / max(count - 1, 1)
        x, y = int(t * W), int((0.5 - 0.5 * math.cos(2 * math.pi * t)) * H)
        frame = photo.crop((x, y, x + W, y + H))
        draw = ImageDraw.Draw(frame)
        cx, cy = int(W * (0.2 + 0.6 * t)), int(H / 2 + H / 4 * math.sin(6 * math.pi * t))
        draw.ellipse((cx - 40, cy - 40, cx + 40, cy + 40), fill=(230, 190, 40))
        draw.rectangle((10, 10, 10 + 4 * (i % 100), 24), fill=(250, 250, 250))
        frame.save(os.path.join(folder, f"f-{i:03d}.png"))


def frame_pngs(path, indices, prefix):
    """Frames `indices` of the animation at `path`, composited by Pillow, saved as RGB PNGs."""
    from PIL import Image
    im = Image.open(path)
    out = []
    for index in indices:
        im.seek(index)
        name = os.path.join(work, f"{prefix}-{index}.png")
        im.convert("RGB").save(name)
        out.append(name)
    return out, getattr(im, "n_frames", 1)


def butteraugli(reference, distorted):
    report = subprocess.run(["butteraugli_main", reference, distorted], capture_output=True, text=True)
    numbers = re.findall(r"^\s*([0-9]+\.[0-9]+)\s*$", report.stdout + report.stderr, re.M)
    return float(numbers[0]) if numbers else float("nan")


def sampled(count):
    """`args.samples` frame indices spread evenly over `count` frames, first and last included."""
    k = max(1, args.samples)
    return sorted({round(i * (count - 1) / max(k - 1, 1)) for i in range(k)})


def row(name, cmd, out, references, note="", cwd=None):
    """One table row: time, CPU, size, memory, frames and butteraugli against `references`
    ({frame index: reference PNG}); with the wall and CPU seconds, for the ratios."""
    try:
        med, lo, hi, cpu = b.timed(cmd, trials=args.trials, warmup=1 if name.startswith("imgtool") else 0,
                                   cwd=cwd)
    except subprocess.CalledProcessError:
        return [name, "fails", "", "", "", "", "", "", "", note], None
    memory = b.peak_memory_mib(cmd, cwd=cwd)
    tag = re.sub(r"\W+", "-", name)
    frames, count = frame_pngs(out, list(references), tag)
    scores = [butteraugli(references[index], frame) for index, frame in zip(references, frames)]
    return [name, f"{med:.2f} s ({lo:.2f}-{hi:.2f})", f"{cpu:.2f} s", None, f"{os.path.getsize(out) / 1e6:.2f} MB",
            f"{memory:.0f} MiB", str(count), f"{sum(scores) / len(scores):.2f} / {max(scores):.2f}", note], (med, cpu)


def print_rows(title, rows):
    """The rows of one case, the first (imgtool's) the base of the ratios: each tool's wall time
    and CPU time over imgtool's."""
    base = next((times for _, times in rows if times), None)
    lines = []
    for cells, times in rows:
        if times and base:
            cells[3] = f"{times[0] / base[0]:.2f}x, {times[1] / base[1]:.2f}x"
        lines.append([c if c is not None else "" for c in cells])
    print(f"## {title}\n")
    print(b.table(["tool", "wall", "CPU", "vs imgtool (wall, CPU)", "output", "peak memory", "frames",
                   "butteraugli mean / worst", "note"], lines))
    print()


def part_a():
    folder = os.path.join(work, f"stills-{args.count}")
    make_stills(folder, args.count)
    sample = sampled(args.count)
    references = {i: os.path.join(folder, f"f-{i:03d}.png") for i in sample}
    pngs = sorted(glob.glob(os.path.join(folder, "f-*.png")))
    out = {name: os.path.join(work, f"a-{name}") for name in
           ["imgtool.gif", "im.gif", "ffmpeg.gif", "imgtool.webp", "imgtool-q75.webp", "img2webp.webp",
            "img2webp-q75.webp"]}
    palette = "split[s0][s1];[s0]palettegen[p];[s1][p]paletteuse"
    gif = [
        row("imgtool convert --fps 25", [imgtool, "convert", folder, out["imgtool.gif"], "--fps", "25", "--force"],
            out["imgtool.gif"], references),
        row("ImageMagick convert -delay 4", [b.IM, "-delay", "4", *pngs, out["im.gif"]], out["im.gif"], references),
        row("ffmpeg palettegen/paletteuse", ["ffmpeg", "-v", "error", "-y", "-framerate", "25", "-i",
                                             os.path.join(folder, "f-%03d.png"), "-filter_complex", palette,
                                             out["ffmpeg.gif"]], out["ffmpeg.gif"], references),
    ]
    print_rows(f"(a) {args.count} PNG stills of {W}x{H} to a GIF at 25 fps", gif)
    lossless = [
        row("imgtool convert --fps 25 (lossless)", [imgtool, "convert", folder, out["imgtool.webp"], "--fps", "25",
                                                    "--force"], out["imgtool.webp"], references),
        row("img2webp -d 40 (lossless)", ["img2webp", "-loop", "0", "-d", "40", *pngs, "-o", out["img2webp.webp"]],
            out["img2webp.webp"], references),
    ]
    print_rows(f"(a) {args.count} PNG stills of {W}x{H} to a lossless WebP at 25 fps", lossless)
    lossy = [
        row("imgtool convert --fps 25 --quality 75", [imgtool, "convert", folder, out["imgtool-q75.webp"], "--fps",
                                                      "25", "--quality", "75", "--force"], out["imgtool-q75.webp"],
            references),
        row("img2webp -d 40 -lossy -q 75", ["img2webp", "-loop", "0", "-d", "40", "-lossy", "-q", "75", *pngs, "-o",
                                            out["img2webp-q75.webp"]], out["img2webp-q75.webp"], references),
    ]
    print_rows(f"(a) {args.count} PNG stills of {W}x{H} to a lossy WebP at 25 fps", lossy)


FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
CAPTION, CAPTION_SIZE, STROKE, MARGIN = "When the build is green", 32, 3, 10


def part_b():
    from PIL import Image, ImageSequence
    gif = os.path.join(b.anim_inputs(), "small.gif")

    def imgtool_cmd(out):
        return [imgtool, "convert", gif, out, "--force", "--text", CAPTION, "--font", FONT, "--font-size",
                str(CAPTION_SIZE), "--color", "white", "--stroke-color", "black", "--stroke-width", str(STROKE),
                "--gravity", "south", "--offset", f"0,-{MARGIN}"]

    def magick_cmd(out, optimize=True):
        # ImageMagick strokes centred on the outline and over the fill: the usual meme recipe
        # draws the stroked text (twice the width, to reach as far outside), then the fill again.
        return [b.IM, gif, "-coalesce", "-font", FONT, "-pointsize", str(CAPTION_SIZE), "-gravity", "south",
                "-fill", "white", "-stroke", "black", "-strokewidth", str(2 * STROKE), "-annotate",
                f"+0+{MARGIN}", CAPTION, "-stroke", "none", "-annotate", f"+0+{MARGIN}", CAPTION,
                *(["-layers", "Optimize"] if optimize else []), out]

    drawtext = (f"drawtext=fontfile={FONT}:text='{CAPTION}':fontsize={CAPTION_SIZE}:fontcolor=white:"
                f"borderw={STROKE}:bordercolor=black:x=(w-text_w)/2:y=h-text_h-{MARGIN}")

    def ffmpeg_cmd(out):
        return ["ffmpeg", "-v", "error", "-y", "-i", gif, "-filter_complex",
                f"[0]{drawtext},split[a][b];[a]palettegen[p];[b][p]paletteuse", "-loop", "0", out]

    def references(name):
        """The tool's own lossless rendering of the caption: {sampled frame index: PNG}."""
        folder = os.path.join(work, f"b-ref-{name}")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        if name == "imgtool":
            b.sh(imgtool_cmd(os.path.join(folder, "all.png")), stdout=subprocess.DEVNULL)
            frames = [frame.convert("RGB") for frame in ImageSequence.Iterator(Image.open(os.path.join(folder,
                                                                                                     "all.png")))]
        else:
            if name == "ImageMagick":
                b.sh(magick_cmd(os.path.join(folder, "f-%03d.png"), optimize=False), stdout=subprocess.DEVNULL)
            else:
                b.sh(["ffmpeg", "-v", "error", "-y", "-i", gif, "-vf", drawtext, os.path.join(folder, "f-%03d.png")])
            frames = [Image.open(p).convert("RGB") for p in sorted(glob.glob(os.path.join(folder, "f-*.png")))]
        picked = {}
        for index in sampled(len(frames)):
            picked[index] = os.path.join(folder, f"ref-{index}.png")
            frames[index].save(picked[index])
        return picked

    out = {name: os.path.join(work, f"b-{name}.gif") for name in ["imgtool", "ImageMagick", "ffmpeg"]}
    rows = [
        row("imgtool convert --text", imgtool_cmd(out["imgtool"]), out["imgtool"], references("imgtool")),
        row("ImageMagick -coalesce -annotate -layers Optimize", magick_cmd(out["ImageMagick"]), out["ImageMagick"],
            references("ImageMagick")),
        row("ffmpeg drawtext palettegen/paletteuse", ffmpeg_cmd(out["ffmpeg"]), out["ffmpeg"], references("ffmpeg")),
    ]
    print_rows(f'(b) "{CAPTION}", DejaVu Sans {CAPTION_SIZE} px, white, {STROKE} px black stroke, bottom centre, '
               "on a 200-frame 480x270 GIF, written as GIF (each scored against its own lossless rendering)", rows)


def part_c():
    data = b.anim_inputs()
    a, c = os.path.join(work, "c-a.gif"), os.path.join(work, "c-b.gif")
    if not (os.path.exists(a) and os.path.exists(c)):
        small = os.path.join(data, "small.gif")
        b.sh([imgtool, "convert", small, a, "--frames", "0..99", "--force"], stdout=subprocess.DEVNULL)
        b.sh([imgtool, "convert", small, c, "--frames", "100..199", "--flop", "--force"], stdout=subprocess.DEVNULL)
    # The reference of each sampled frame: the two inputs' frames side by side (same timing, so
    # frame i of the montage shows frame i of each).
    from PIL import Image
    sample = sampled(100)
    references = {}
    ia, ib = Image.open(a), Image.open(c)
    for i in sample:
        ia.seek(i)
        ib.seek(i)
        both = Image.new("RGB", (2 * ia.width, ia.height))
        both.paste(ia.convert("RGB"), (0, 0))
        both.paste(ib.convert("RGB"), (ia.width, 0))
        references[i] = os.path.join(work, f"c-ref-{i}.png")
        both.save(references[i])
    out = {name: os.path.join(work, f"c-{name}.gif") for name in ["imgtool", "im", "ffmpeg"]}
    rows = [
        row("imgtool convert --montage 2x1", [imgtool, "convert", a, c, out["imgtool"], "--montage", "2x1",
                                              "--force"], out["imgtool"], references),
        row("ImageMagick -coalesce -extent -layers composite",
            [b.IM, a, "-coalesce", "-background", "none", "-extent", f"{2 * ia.width}x{ia.height}", "null:", "(", c,
             "-coalesce", ")", "-geometry", f"+{ia.width}+0", "-layers", "composite", "-layers", "optimize",
             out["im"]], out["im"], references),
        row("ffmpeg hstack palettegen/paletteuse",
            ["ffmpeg", "-v", "error", "-y", "-i", a, "-i", c, "-filter_complex", "[0][1]hstack," +
             "split[s0][s1];[s0]palettegen[p];[s1][p]paletteuse", out["ffmpeg"]], out["ffmpeg"], references),
    ]
    print_rows("(c) a 2x1 montage of two 100-frame GIFs of 480x270", rows)


b.keep_core_busy(args.busy)
print(f"# Making animations ({b.machine()}; {args.trials} trials, median wall, mean CPU{b.mode_note(args.busy)})\n")
for part, run in (("a", part_a), ("b", part_b), ("c", part_c)):
    if args.only in (None, part):
        run()
