"""`make bench`: what one portrait upload costs a worker, in peak memory and CPU.

Each case runs in a fresh subprocess (peak RSS is a high-water mark, so one process per
case), measured with resource.getrusage around the work alone. The reference is Pillow
decoding the same file once with nothing else, so the ratios hold on a busy machine.

Issue 11.4's file: a 6,300 x 6,300 PNG of a few hundred KB. Before the fix (measured with
the old code and this same harness, on a shared machine) it was decoded twice, form then
service, at full size: +384 MB peak and 3.1 s of CPU, 2.5x the reference's memory and 4.2x
its CPU; a 4,000 x 4,000 PNG took +182 MB and 1.46 s, 3.0x and 5.6x its reference. Now the
header alone refuses the first (the cap is 16 MP), and the largest upload accepted is
decoded once and shrunk before anything else.
"""

import io
import os
import subprocess
import sys

from tests.bench import QUICK

# (label, mode, side, index of the reference case it is compared with)
CASES = [
    ("reference: Pillow decodes the 6,300 x 6,300 PNG once", "plain", 6300, 0),
    ("the 6,300 x 6,300 PNG through the upload path", "pipeline", 6300, 0),
    ("reference: Pillow decodes a 4,000 x 4,000 PNG once", "plain", 4000, 2),
    ("the 4,000 x 4,000 PNG (the 16 MP cap) through the upload path", "pipeline", 4000, 2),
]
if QUICK:  # the same paths (refused by its header, stored) on files a tenth the work
    CASES = [
        ("reference: Pillow decodes a 4,100 x 4,100 PNG once", "plain", 4100, 0),
        ("the 4,100 x 4,100 PNG (over the cap) through the upload path", "pipeline", 4100, 0),
        ("reference: Pillow decodes a 1,000 x 1,000 PNG once", "plain", 1000, 2),
        ("the 1,000 x 1,000 PNG through the upload path", "pipeline", 1000, 2),
    ]


def _png(side: int) -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("RGBA", (side, side), (255, 255, 255, 0))
    draw = ImageDraw.Draw(image)
    for i in range(0, side // 2, side // 6):
        draw.ellipse((i, i, side - i, side - i), outline=(i % 255, 80, 200 - i % 200, 255), width=2)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=not QUICK)
    return out.getvalue()


def _child(mode: str, side: int) -> None:
    import resource

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memeyori_site.settings")
    django.setup()
    from django.core.exceptions import ValidationError
    from django.core.files.uploadedfile import SimpleUploadedFile
    from PIL import Image

    from cards.printing import portraits

    data = _png(side)

    def usage():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_maxrss, r.ru_utime + r.ru_stime

    rss0, cpu0 = usage()
    outcome = "stored"
    if mode == "plain":
        outcome = "decoded"
        Image.MAX_IMAGE_PIXELS = None
        with Image.open(io.BytesIO(data)) as image:
            image.convert("RGB")
    else:
        try:
            # The request's check, then the task's one decode, crops and encodes.
            raw, _ = portraits.portrait_check(SimpleUploadedFile("p.png", data))
            image = portraits.portrait_decode(raw)
            portraits.crops(image, 0.5, 0.5)
            portraits._jpeg(image)
        except ValidationError:
            outcome = "refused"
    rss1, cpu1 = usage()
    print(len(data), (rss1 - rss0) / 1024, cpu1 - cpu0, outcome)


def _measure(mode: str, side: int) -> tuple[int, float, float, str]:
    out = subprocess.run(
        [sys.executable, "-m", "tests.bench.portraits", mode, str(side)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    size, mb, cpu, outcome = out.stdout.split()
    return int(size), float(mb), float(cpu), outcome


def _ratio(value: float, reference: float) -> str:
    # A small file's decode can stay under the peak the child's start-up already set, so
    # its reference may measure 0 (quick mode's files do): no ratio, rather than a crash.
    return f"{value / reference:.2f}x" if reference > 0 else "n/a (reference too small to measure)"


def bench_portraits() -> None:
    results = [(label, *_measure(mode, side)) for label, mode, side, _ in CASES]
    for (label, size, mb, cpu, outcome), (*_, ref) in zip(results, CASES, strict=True):
        _, _, ref_mb, ref_cpu, _ = results[ref]
        print(
            f"portraits: {label} ({size / 1024:.0f} KB): +{mb:.0f} MB peak, {cpu:.2f} s CPU, "
            f"{outcome}; {_ratio(mb, ref_mb)} the reference's memory, "
            f"{_ratio(cpu, ref_cpu)} its CPU"
        )


BENCHES = [bench_portraits]


if __name__ == "__main__":
    _child(sys.argv[1], int(sys.argv[2]))
