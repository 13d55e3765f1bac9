"""Rewrite docs/figures/leaderboard_page.png: three views of leaderboard/index.html in headless Chromium at 1400 px.

The ranking's first rows (measured time, charged time, time limit), the performance profile and budget curves
as the page draws them with the filters on the variational track, and one solver's per-system drill-down opened
from the ranking, stacked into one image. Run from the repository root after `qlsbench board render`:

    python docs/figures/leaderboard_page.py
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

from PIL import Image
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "leaderboard" / "index.html"
OUT = Path(__file__).with_suffix(".png")
#: The drill-down shown: a variational solver that fails some systems on each track.
SOLVER = "vqls-local-lbfgsb-L16"
#: Width of the committed image (the screenshots are taken at 1400 px and scaled down to keep the file small).
WIDTH = 1050


def _clip(page, top_selector: str, bottom_selector: str, pad: int = 8) -> Image.Image:
    """A full-page screenshot cut from the top of one element to the bottom of another."""
    top = page.locator(top_selector).first.bounding_box()
    bottom = page.locator(bottom_selector).first.bounding_box()
    y0 = page.evaluate("window.scrollY") + top["y"] - pad
    y1 = page.evaluate("window.scrollY") + bottom["y"] + bottom["height"] + pad
    png = page.screenshot(full_page=True, clip={"x": 0, "y": y0, "width": 1400, "height": y1 - y0})
    return Image.open(io.BytesIO(png)).convert("RGB")


def main() -> None:
    args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=args)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(PAGE.as_uri())
        ranking = _clip(page, ".filters", ".track:not([hidden]) tbody tr:not([hidden]) >> nth=9")
        # a full-page capture draws the sticky filter bar where the window is: over what the later cuts show
        page.add_style_tag(content=".filters{position:static}")
        page.select_option("#f-track", "variational")
        page.evaluate("document.getElementById('plot-legend').scrollIntoView()")
        plots = _clip(page, "#plot-legend", "#plot-budget")
        page.select_option("#f-track", "exact")
        page.locator(".track:not([hidden]) a.drill-link", has_text=SOLVER).first.click()
        drill = _clip(page, f"details#drill-{SOLVER} summary", f"details#drill-{SOLVER} tbody tr >> nth=4")
        browser.close()
    gap = 12
    sheet = Image.new("RGB", (1400, ranking.height + plots.height + drill.height + 2 * gap), "white")
    y = 0
    for part in (ranking, plots, drill):
        sheet.paste(part, (0, y))
        y += part.height + gap
    sheet = sheet.resize((WIDTH, round(sheet.height * WIDTH / 1400)), Image.LANCZOS)
    # a palette of 256 keeps every solver's colour and takes a third of the bytes
    sheet.quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE).save(OUT, optimize=True)
    print(f"{OUT}: {sheet.width} x {sheet.height}")


if __name__ == "__main__":
    main()
