"""Draw assets/icon.png (1024x1024): a caption bubble with two text lines on a blue rounded tile.

The same motif as the in-app icon (app/widgets/app_icon.py), with the full-bleed tile macOS and Linux docks expect.
Run once after changing the design: `.venv/bin/python packaging/make_icon.py`; the build scripts make the
.icns (macOS, iconutil) and the .desktop icon (Linux) from the PNG this writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image, ImageDraw

SIZE = 1024
SUPERSAMPLE = 4
BLUE = (47, 129, 247, 255)  # #2f81f7, the app's accent
DEEP_BLUE = (31, 94, 196, 255)
WHITE = (255, 255, 255, 255)
LIGHT_LINE = (47, 129, 247, 150)
OUT = Path(__file__).resolve().parent.parent / "assets" / "icon.png"


def _tile(s: int) -> Image.Image:
    """The rounded square with a soft top-to-bottom gradient, inset like Apple's icon grid (824 of 1024)."""
    inset, radius = 100 * s, 185 * s
    size = SIZE * s
    gradient = Image.new("RGBA", (1, size))
    for y in range(size):
        t = y / (size - 1)
        gradient.putpixel((0, y), tuple(round(a + (b - a) * t) for a, b in zip(BLUE, DEEP_BLUE)))
    gradient = gradient.resize((size, size))
    mask = Image.new("L", (size, size), 0)
    ImageDraw.Draw(mask).rounded_rectangle((inset, inset, size - inset, size - inset), radius, fill=255)
    tile = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    tile.paste(gradient, (0, 0), mask)
    return tile


def draw_icon(s: int = SUPERSAMPLE) -> Image.Image:
    """The icon at SIZE x SIZE, drawn at s times the size and downsampled for smooth edges."""
    image = _tile(s)
    d = ImageDraw.Draw(image)
    # Speech bubble: rounded body and a tail at the lower left.
    d.rounded_rectangle((240 * s, 290 * s, 784 * s, 650 * s), 90 * s, fill=WHITE)
    d.polygon([(330 * s, 630 * s), (300 * s, 770 * s), (450 * s, 630 * s)], fill=WHITE)
    # Two caption lines: a long one and a shorter, lighter one.
    d.rounded_rectangle((320 * s, 390 * s, 704 * s, 440 * s), 25 * s, fill=BLUE)
    lines = Image.new("RGBA", image.size, (0, 0, 0, 0))
    ImageDraw.Draw(lines).rounded_rectangle((320 * s, 500 * s, 590 * s, 550 * s), 25 * s, fill=LIGHT_LINE)
    image.alpha_composite(lines)
    return image.resize((SIZE, SIZE), Image.LANCZOS)


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    draw_icon().save(out, optimize=True)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
