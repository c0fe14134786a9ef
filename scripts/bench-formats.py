#!/usr/bin/env python3
"""scripts/bench formats: AVIF, JPEG XL and HEIC, imgtool against its peers in one run.

Inputs (made once in .bench/formats, the same bytes every time): a 4032x3024 photo-like PNG
(benchlib.photo_like), encoded with each format's reference encoder at its defaults: AVIF by
`avifenc -j all` (libavif 0.11.1, aom, speed 6, 4:4:4), JPEG XL by `cjxl` (distance 1, effort
7), HEIC by `heif-enc` (libheif 1.15, x265, quality 50), and a JPEG at quality 90 (Pillow, 4:2:0)
for the transcode; and an AVIF sequence of 100 frames at 480x270 (a photo-like picture panning
across the frame), by `avifenc -j all --fps 25` (which gives a sequence an opaque alpha plane).
(aom's output depends on its thread count, so the AVIF inputs are the same for the same cores.)

1. Decode, whole process, every frame to pixels: imgtool `info --verify` (on every core and
   pinned to one), the reference decoder's own loop in C (Benchmarks/avif-loop, jxl-loop,
   heif-loop: libavif with dav1d, libjxl, libheif with libde265; to 8-bit RGBA, on 2 threads and
   on 1), libvips (`vips avg`, libheif for AVIF and HEIC, libjxl for JPEG XL), Pillow (the
   pillow-avif-plugin, pillow-jxl-plugin and pillow-heif plugins, which bring their own builds
   of the libraries; and Pillow's own AVIF support when it has it) and ImageMagick 6 (`-format %#
   info:`, a hash of the pixels). A tool that decodes fewer frames than the file has is marked.
2. Encode the still photo from the PNG, lossy at each tool's defaults: imgtool `convert
   --no-lossless` (on every core and pinned to one) against `avifenc` (`-j all`, and `-j 1`
   pinned to one core) and `cjxl` (all cores by default, and `--num_threads 0` pinned to one).
   Each output's size and its butteraugli distance (max and 3-norm, lower is better) to the
   source PNG, decoded back to PNG by imgtool.
3. JPEG to JPEG XL, lossless transcode (cjxl's default for a JPEG; imgtool's too): imgtool
   `convert photo.jpg photo.jxl` against `cjxl photo.jpg` (each also on one core), each output's
   size, and whether each rebuilds the original JPEG byte for byte through imgtool (`convert
   x.jxl back.jpg`) and djxl; the rebuild timed too.
Every row reports the median wall time and the mean CPU time (user + system) of a run; "vs
imgtool" is the wall time over imgtool's (on every core). The run ends with the list of rows
where a peer took less wall time than imgtool on as many cores (a one-core row against imgtool
pinned to one core). With --busy, every tool runs while another process keeps one core busy.
usage: scripts/bench formats [--trials N] [--only decode|encode|transcode] [--busy]
"""
import argparse
import filecmp
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import benchlib as b  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--trials", type=int, default=3)
parser.add_argument("--only", choices=["decode", "encode", "transcode"])
b.add_busy_argument(parser)
args = parser.parse_args()

b.ensure_apt("libavif-bin", "libavif-dev", "libjxl-tools", "libjxl-devtools", "libjxl-dev", "libheif1",
             "libheif-dev", "libheif-examples", "libvips-tools", "imagemagick", "time")
b.ensure_pip(("PIL", "pillow"), ("numpy", "numpy"))
from PIL import Image, features  # noqa: E402

notes = []
plugins = {}  # format -> the module that registers Pillow's opener for it
for fmt, module, package in [("avif", "pillow_avif", "pillow-avif-plugin"), ("jxl", "pillow_jxl", "pillow-jxl-plugin"),
                             ("heic", "pillow_heif", "pillow-heif")]:
    try:
        b.ensure_pip((module, package))
        subprocess.run([sys.executable, "-c", f"import {module}"], check=True, capture_output=True)
        plugins[fmt] = module
    except Exception as error:  # noqa: BLE001 - a plugin pip cannot install: its rows are skipped
        notes.append(f"Pillow {fmt}: {package} could not be installed or imported ({error}); skipped")

imgtool = b.build_release()
loops = {
    "avif": b.build_c("avif_loop", "Benchmarks/avif-loop/avif_loop.c", ["-lavif"]),
    "jxl": b.build_c("jxl_loop", "Benchmarks/jxl-loop/jxl_loop.c", ["-ljxl", "-ljxl_threads"]),
    "heic": b.build_c("heif_loop", "Benchmarks/heif-loop/heif_loop.c", ["-lheif"]),
}
work = b.work_folder("formats")
py = sys.executable
pin = ["taskset", "-c", "0"]
ALL = f"{os.cpu_count()} cores"


def path(name):
    return os.path.join(work, name)


def make(out, build):
    """Runs `build(tmp)` to make `out` once (through a temporary name, so a stopped run leaves none)."""
    if not os.path.exists(out):
        tmp = out + ".tmp" + os.path.splitext(out)[1]
        build(tmp)
        os.replace(tmp, out)
    return out


# --- Inputs -----------------------------------------------------------------------------------
W, H = 4032, 3024
photo_png = make(path("photo.png"), lambda tmp: b.photo_like(W, H).save(tmp))
photo_jpg = make(path("photo.jpg"), lambda tmp: Image.open(photo_png).save(tmp, quality=90))
photo_avif = make(path("photo.avif"), lambda tmp: b.sh(["avifenc", "-j", "all", photo_png, tmp],
                                                        stdout=subprocess.DEVNULL))
photo_jxl = make(path("photo.jxl"), lambda tmp: b.sh(["cjxl", photo_png, tmp], stdout=subprocess.DEVNULL,
                                                      stderr=subprocess.DEVNULL))
photo_heic = make(path("photo.heic"), lambda tmp: b.sh(["heif-enc", photo_png, "-o", tmp], stdout=subprocess.DEVNULL))

SEQ_FRAMES, SEQ_W, SEQ_H = 100, 480, 270


def make_sequence(tmp):
    frames_dir = path("seq-frames")
    os.makedirs(frames_dir, exist_ok=True)
    scene = b.photo_like(SEQ_W + 4 * SEQ_FRAMES, SEQ_H + 2 * SEQ_FRAMES, seed=4321)
    names = []
    for i in range(SEQ_FRAMES):  # the camera pans right and down, 4 and 2 pixels a frame
        name = os.path.join(frames_dir, f"frame-{i:03d}.png")
        scene.crop((4 * i, 2 * i, 4 * i + SEQ_W, 2 * i + SEQ_H)).save(name)
        names.append(name)
    b.sh(["avifenc", "-j", "all", "--fps", "25", *names, tmp], stdout=subprocess.DEVNULL)


seq_avif = make(path("sequence.avif"), make_sequence)
seq_info = subprocess.run([imgtool, "info", "--json", seq_avif], capture_output=True, text=True).stdout
if '"color_type":"rgba"' in seq_info:
    notes.append("sequence.avif has an alpha plane (all opaque): avifenc 0.11.1 writes one for every sequence, "
                 "so each of its frames decodes two AV1 images")


# --- Measuring ----------------------------------------------------------------------------------
def measure(cmd, trials, warmup=1):
    """Median wall seconds and mean CPU seconds (user + system) of a run of `cmd`."""
    return b.measure_with_cpu(cmd, trials=trials, warmup=warmup, cwd=work)


def run_quiet(cmd):
    return subprocess.run(cmd, cwd=work, capture_output=True, text=True)


def failure(name, cmd):
    result = run_quiet(cmd)
    text = (result.stderr or result.stdout).strip().splitlines()
    return f"{name} failed (exit {result.returncode}): {text[-1][:300] if text else 'no message'}"


def ms(seconds):
    return f"{seconds * 1000:,.0f} ms"


stop_busy = b.keep_core_busy(args.busy)  # stopped once every tool is measured

# --- 1. Decoding --------------------------------------------------------------------------------
PILLOW_DECODE = ("import sys\nif sys.argv[2]: __import__(sys.argv[2])\n"
                 "if sys.argv[2] == 'pillow_heif': __import__('pillow_heif').register_heif_opener()\n"
                 "from PIL import Image, ImageSequence\n"
                 "im = Image.open(sys.argv[1])\n"
                 "print(sum(1 for f in ImageSequence.Iterator(im) if f.convert('RGBA').load() is not None))\n")
pillow_script = path("pillow_decode.py")
with open(pillow_script, "w") as f:
    f.write(PILLOW_DECODE)

im_formats = run_quiet([b.IM, "-list", "format"]).stdout
im_reads = {fmt: bool(re.search(rf"^\s*{tag}\*?\s+\S+\s+r", im_formats, re.M))
            for fmt, tag in [("avif", "AVIF"), ("jxl", "JXL"), ("heic", "HEIC")]}
vips_loaders = run_quiet(["vips", "-l", "foreign"]).stdout


def imgtool_frames(file):
    out = run_quiet([imgtool, "info", "--json", file]).stdout
    try:
        return json.loads(out.splitlines()[0])["frames"]
    except (ValueError, KeyError, IndexError):
        return None


def first_number(cmd):
    found = re.search(r"\d+", run_quiet(cmd).stdout)
    return int(found.group()) if found else None


def decode_tools(fmt, file, sequence):
    loop = loops[fmt]
    tools = [
        (f"imgtool info --verify ({ALL})", [imgtool, "info", "--verify", file], lambda: imgtool_frames(file)),
        ("imgtool info --verify (1 core)", pin + [imgtool, "info", "--verify", file], lambda: imgtool_frames(file)),
    ]
    if fmt == "heic":
        tools.append(("libheif loop in C (libde265)", [loop, file], lambda: first_number([loop, file])))
        tools.append(("libheif loop in C (1 core)", pin + [loop, file], lambda: first_number([loop, file])))
    else:
        name = "libavif loop in C (dav1d)" if fmt == "avif" else "libjxl loop in C"
        tools.append((f"{name}, 2 threads", [loop, file, "2"], lambda: first_number([loop, file, "2"])))
        tools.append((f"{name}, 1 thread (1 core)", pin + [loop, file, "1"], lambda: first_number([loop, file, "1"])))
    vips_file = f"{file}[n=-1]" if sequence else file
    if fmt != "jxl" or "jxlload" in vips_loaders:
        via = "libjxl" if fmt == "jxl" else "libheif"
        tools.append((f"vips avg ({via})", ["vips", "avg", vips_file],
                      lambda: first_number(["vipsheader", "-f", "n-pages", vips_file]) or 1))
    else:
        notes.append("vips: this libvips has no JPEG XL loader; skipped")
    if fmt in plugins:
        package = {"avif": "pillow-avif-plugin", "jxl": "pillow-jxl-plugin", "heic": "pillow-heif"}[fmt]
        cmd = [py, pillow_script, file, plugins[fmt]]
        tools.append((f"Pillow + {package}", cmd, lambda cmd=cmd: first_number(cmd)))
    if fmt == "avif" and features.check("avif"):
        cmd = [py, pillow_script, file, ""]
        tools.append((f"Pillow's own AVIF (libavif {features.version('avif')})", cmd,
                      lambda cmd=cmd: first_number(cmd)))
    if im_reads[fmt]:
        cmd = [b.IM, file, "-format", "%#\n", "info:"]
        tools.append(("ImageMagick 6 (-format %# info:)", cmd,
                      lambda cmd=cmd: len(run_quiet(cmd).stdout.split())))
    else:
        notes.append(f"ImageMagick 6 ({b.IM}): no {fmt.upper()} reader in `-list format`; skipped")
    return tools


decode_inputs = [
    ("avif", photo_avif, f"photo.avif ({W}x{H}, avifenc -j all defaults)", 1, False),
    ("jxl", photo_jxl, f"photo.jxl ({W}x{H}, cjxl defaults)", 1, False),
    ("heic", photo_heic, f"photo.heic ({W}x{H}, heif-enc defaults)", 1, False),
    ("avif", seq_avif, f"sequence.avif ({SEQ_FRAMES} frames {SEQ_W}x{SEQ_H}, avifenc -j all --fps 25)",
     SEQ_FRAMES, True),
]
slower = []  # (what, peer, ratio, against): where a peer's wall time beats imgtool's on as many cores


def compare(what, name, wall, base, one_core):
    """Notes a peer (a row not starting "imgtool") faster than imgtool on as many cores: a row marked
    "1 core" or "1 thread" against imgtool pinned to one core, any other against imgtool on all."""
    if name.startswith("imgtool"):
        return
    single = "1 core" in name or "1 thread" in name
    ours = one_core if single else base
    if ours is not None and wall < ours:
        slower.append((what, name, ours / wall, "imgtool on 1 core" if single else "imgtool on every core"))

try:
    print(f"# AVIF, JPEG XL and HEIC benchmark ({b.machine()}; {args.trials} trials, median wall, mean CPU"
          f"{b.mode_note(args.busy)})\n")
    for fmt, file, title, frames, sequence in decode_inputs if args.only in (None, "decode") else []:
        rows, base, one_core = [], None, None
        for name, cmd, counter in decode_tools(fmt, file, sequence):
            try:
                wall, cpu = measure(cmd, args.trials)
            except subprocess.CalledProcessError:
                notes.append(f"{os.path.basename(file)}: {failure(name, cmd)}")
                if name.startswith("vips") and sequence:
                    notes.append("vips 8.14 takes no file of the `avis` brand (an AVIF sequence) as HEIF, so its "
                                 "ImageMagick loader tries it and fails; forced (`vips heifload`) it reads the "
                                 "first frame only: libheif 1.15 reads no AVIF track")
                rows.append([name, "failed", "", "", "", ""])
                continue
            counted = counter()
            shown = counted if counted is not None else "?"
            label = name if counted == frames else f"{name} (decodes {shown} of {frames} frames)"
            base = base or wall
            if counted == frames:
                compare(f"decode {os.path.basename(file)}", name, wall, base, one_core)
            if name.startswith("imgtool") and "1 core" in name:
                one_core = wall
            mem = b.peak_memory_mib(cmd, cwd=work)
            rows.append([label, ms(wall), f"{wall / base:.2f}x", ms(cpu), f"{frames / wall:.1f}" if sequence else
                         f"{W * H / wall / 1e6:.0f}", f"{mem:.0f} MiB"])
        size = os.path.getsize(file)
        print(f"## Decode {title}, {size / 1024:,.0f} KiB: every frame to pixels (whole process)\n")
        rate = "frames/s" if sequence else "Mpx/s"
        print(b.table(["tool", "median", "vs imgtool", "CPU", rate, "peak memory"], rows) + "\n")

    # --- 2. Encoding ----------------------------------------------------------------------------
    def butteraugli(decoded):
        report = run_quiet(["butteraugli_main", photo_png, decoded])
        text = report.stdout + report.stderr
        numbers = re.findall(r"^\s*([0-9]+\.[0-9]+)\s*$", text, re.M)
        norm = re.search(r"3-norm: ([0-9.]+)", text)
        return (f"{float(numbers[0]):.3f}" if numbers else "?"), (f"{float(norm.group(1)):.3f}" if norm else "?")

    encoders = [
        ("AVIF", [
            (f"imgtool convert --no-lossless ({ALL})", [imgtool, "convert", photo_png, "enc-imgtool.avif",
                                                        "--no-lossless", "--force"], "enc-imgtool.avif"),
            ("imgtool convert --no-lossless (1 core)", pin + [imgtool, "convert", photo_png, "enc-imgtool-1.avif",
                                                             "--no-lossless", "--force"], "enc-imgtool-1.avif"),
            (f"avifenc -j all ({os.cpu_count()} threads)", ["avifenc", "-j", "all", photo_png, "enc-avifenc.avif"],
             "enc-avifenc.avif"),
            ("avifenc -j 1 (1 core)", pin + ["avifenc", "-j", "1", photo_png, "enc-avifenc-j1.avif"],
             "enc-avifenc-j1.avif"),
        ]),
        ("JPEG XL", [
            (f"imgtool convert --no-lossless ({ALL})", [imgtool, "convert", photo_png, "enc-imgtool.jxl",
                                                        "--no-lossless", "--force"], "enc-imgtool.jxl"),
            ("imgtool convert --no-lossless (1 core)", pin + [imgtool, "convert", photo_png, "enc-imgtool-1.jxl",
                                                             "--no-lossless", "--force"], "enc-imgtool-1.jxl"),
            ("cjxl (default: all cores)", ["cjxl", photo_png, "enc-cjxl.jxl"], "enc-cjxl.jxl"),
            ("cjxl --num_threads 0 (1 core)", pin + ["cjxl", "--num_threads", "0", photo_png, "enc-cjxl-t1.jxl"],
             "enc-cjxl-t1.jxl"),
        ]),
    ]
    for kind, tools in encoders if args.only in (None, "encode") else []:
        rows, base, one_core = [], None, None
        for name, cmd, out in tools:
            try:
                wall, cpu = measure(cmd, args.trials, warmup=0)
            except subprocess.CalledProcessError:
                notes.append(f"encode {kind}: {failure(name, cmd)}")
                rows.append([name, "failed", "", "", "", "", "", ""])
                continue
            base = base or wall
            compare(f"encode {kind}", name, wall, base, one_core)
            if name.startswith("imgtool") and "1 core" in name:
                one_core = wall
            decoded = path(out + ".png")
            subprocess.run([imgtool, "convert", path(out), decoded, "--force"], check=True, capture_output=True)
            size = os.path.getsize(path(out))
            rows.append([name, ms(wall), f"{wall / base:.2f}x", ms(cpu), f"{size:,} B",
                         f"{size * 8 / (W * H):.3f}", *butteraugli(decoded)])
        print(f"## Encode {kind}: {W}x{H} photo-like PNG ({os.path.getsize(photo_png) / 2**20:.1f} MiB), "
              "lossy, each tool's defaults (whole process)\n")
        print(b.table(["tool", "median", "vs imgtool", "CPU", "size", "bits/pixel", "butteraugli max", "3-norm"],
                      rows) + "\n")

    # --- 3. JPEG -> JPEG XL, lossless -----------------------------------------------------------
    # cjxl and djxl keep every marker; imgtool keeps them only when asked (private by default).
    KEEP_ALL = ["--keep-metadata", "--keep-gps"]
    if args.only in (None, "transcode"):
        jpeg_bytes = os.path.getsize(photo_jpg)
        transcoders = [
            (f"imgtool convert ({ALL})", [imgtool, "convert", photo_jpg, "tr-imgtool.jxl", "--force", *KEEP_ALL],
             "tr-imgtool.jxl"),
            ("imgtool convert (1 core)", pin + [imgtool, "convert", photo_jpg, "tr-imgtool-1.jxl", "--force", *KEEP_ALL],
             "tr-imgtool-1.jxl"),
            ("cjxl (default: all cores)", ["cjxl", photo_jpg, "tr-cjxl.jxl"], "tr-cjxl.jxl"),
            ("cjxl --num_threads 0 (1 core)", pin + ["cjxl", "--num_threads", "0", photo_jpg, "tr-cjxl-t1.jxl"],
             "tr-cjxl-t1.jxl"),
        ]
        rows, base, one_core, outputs = [], None, None, []
        for name, cmd, out in transcoders:
            try:
                wall, cpu = measure(cmd, args.trials)
            except subprocess.CalledProcessError:
                notes.append(f"transcode: {failure(name, cmd)}")
                rows.append([name, "failed", "", "", "", ""])
                continue
            base = base or wall
            compare("JPEG -> JPEG XL transcode", name, wall, base, one_core)
            if name.startswith("imgtool") and "1 core" in name:
                one_core = wall
            size = os.path.getsize(path(out))
            outputs.append((name, out))
            rows.append([name, ms(wall), f"{wall / base:.2f}x", ms(cpu), f"{size:,} B",
                         f"{(jpeg_bytes - size) / jpeg_bytes * 100:.1f}%"])
        print(f"## JPEG -> JPEG XL, lossless transcode: {W}x{H} JPEG quality 90 ({jpeg_bytes:,} B) (whole process)\n")
        print(b.table(["tool", "median", "vs imgtool", "CPU", "size", "saved"], rows) + "\n")

        # Rebuilding the JPEG: timed from imgtool's and cjxl's files, each checked byte for byte.
        rows = []
        for name, out in [o for o in outputs if "1 core" not in o[0]]:
            base = None
            for tool, cmd in [("imgtool convert x.jxl back.jpg",
                               [imgtool, "convert", out, "back-imgtool.jpg", "--force", *KEEP_ALL]),
                              ("djxl x.jxl back.jpg", ["djxl", out, "back-djxl.jpg"])]:
                try:
                    wall, cpu = measure(cmd, args.trials)
                except subprocess.CalledProcessError:
                    notes.append(f"rebuild: {failure(tool, cmd)}")
                    rows.append([tool, name.split(" (")[0], "failed", "", "", "", ""])
                    continue
                base = base or wall
                compare(f"JPEG XL -> JPEG rebuild ({name.split(' (')[0]}'s file)", tool, wall, base, None)
                back = path(cmd[3] if tool.startswith("imgtool") else cmd[2])
                same = filecmp.cmp(photo_jpg, back, shallow=False)
                rows.append([tool, f"{out} ({name.split(' (')[0]})", ms(wall), f"{wall / base:.2f}x", ms(cpu),
                             f"{os.path.getsize(back):,} B", "byte-exact" if same else "DIFFERS"])
        print("## JPEG XL -> JPEG rebuild (whole process), compared with the original JPEG (cmp)\n")
        print(b.table(["tool", "file", "median", "vs imgtool", "CPU", "size", "vs photo.jpg"], rows) + "\n")
finally:
    stop_busy()

if slower:
    print("Where a peer's wall time beat imgtool's (on the same number of cores):\n")
    for what, tool, ratio, against in slower:
        noise = " (within run-to-run noise)" if ratio < 1.05 else ""
        print(f"- {what}: {tool} takes {1 / ratio:.2f}x the wall time of {against}{noise}")
    print()
avifenc_version = run_quiet(["avifenc", "--version"]).stdout.strip().splitlines()[0].replace("Version: ", "")
notes.append(f"avifenc {avifenc_version}; cjxl and djxl: libjxl 0.7; "
             "cjxl and djxl use every core by default")
for fmt, module in plugins.items():
    package = {"avif": "pillow-avif-plugin", "jxl": "pillow-jxl-plugin", "heic": "pillow-heif"}[fmt]
    version = run_quiet([py, "-c", f"import importlib.metadata as m; print(m.version('{package}'))"]).stdout.strip()
    notes.append(f"Pillow {fmt}: {package} {version or '?'} (a wheel with its own build of the codec library)")
for note in dict.fromkeys(notes):
    print(f"note: {note}")
print(f"load average at the end: {open('/proc/loadavg').read().split()[0]} on {os.cpu_count()} cores")
