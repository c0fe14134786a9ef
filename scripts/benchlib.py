"""Shared helpers for imgtool's benchmark scripts: whole-process timing with warm-up runs,
N samples, median and spread, peak memory from /usr/bin/time -v, and a Markdown table."""
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
WORK = os.path.join(ROOT, ".bench")


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=isinstance(cmd, str), check=True, **kw)


def ensure_apt(*packages):
    missing = [p for p in packages if subprocess.run(["dpkg", "-s", p], capture_output=True).returncode != 0]
    if missing:
        print(f"bench: installing {' '.join(missing)}", file=sys.stderr)
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        sh(sudo + ["apt-get", "update", "-qq"])
        sh(sudo + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing],
           env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"}, stdout=subprocess.DEVNULL)


def ensure_pip(*modules):
    for module, package in modules:
        try:
            __import__(module)
        except ImportError:
            sh([sys.executable, "-m", "pip", "install", "-q", package])


def build_release():
    sh([os.path.join(ROOT, "scripts/build-release")], cwd=ROOT, stdout=subprocess.DEVNULL)
    return os.path.join(ROOT, ".build/release/imgtool")


def build_c(name, source, libs):
    os.makedirs(WORK, exist_ok=True)
    out = os.path.join(WORK, name)
    src = os.path.join(ROOT, source)
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
        sh(["cc", "-O2", "-o", out, src, *libs])
    return out


def measure(cmd, trials=5, warmup=1, cwd=None):
    """Runs `cmd` warmup + trials times; returns (median seconds, min, max)."""
    samples = []
    for i in range(warmup + trials):
        start = time.perf_counter()
        subprocess.run(cmd, shell=isinstance(cmd, str), check=True, cwd=cwd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if i >= warmup:
            samples.append(time.perf_counter() - start)
    return statistics.median(samples), min(samples), max(samples)


def peak_memory_mib(cmd, cwd=None):
    """Maximum resident set size of one run, in MiB (from /usr/bin/time -v)."""
    full = ["/usr/bin/time", "-v"] + (["sh", "-c", cmd] if isinstance(cmd, str) else cmd)
    result = subprocess.run(full, capture_output=True, text=True, cwd=cwd)
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr)
    return int(match.group(1)) / 1024 if match else float("nan")


def table(headers, rows):
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(" --- " for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def machine():
    cpu = "unknown cpu"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {cpu}"

# ImageMagick 6 from Debian. Named by full path: some machines put an unrelated `convert` first on PATH.
IM = "/usr/bin/convert"


def anim_inputs():
    """Makes the animation benchmark inputs (scripts/make-anim-images.py) once; returns their folder."""
    data = os.path.join(WORK, "anim")
    sh([sys.executable, os.path.join(ROOT, "scripts/make-anim-images.py"), data], stdout=subprocess.DEVNULL)
    return data


def work_folder(name):
    """A folder of .bench/ for one benchmark's outputs."""
    folder = os.path.join(WORK, name)
    os.makedirs(folder, exist_ok=True)
    return folder
