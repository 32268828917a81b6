"""The HTML report in a real browser: headless Chromium over the DevTools protocol (``_browser``).

One report (H200-like results with a hostile name, plus a trace) is opened once; each test asks
one thing of it: the page is not blank and the roofline's dots are where the plot is, the DOM
holds the numbers, a header click reorders rows, no request leaves the file, the injected name
did not run, a narrow window and print layout do not cut tables, dark mode applies.

Skips without Chromium, unless ``BENCH_KERNEL_REQUIRE_BROWSER=1`` (set by ``.ci/run``), where a
missing browser fails: CI must not pass by skipping.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pytest

from _browser import Browser, find_chromium
from _report_helpers import EVIL, h200_results, write_run_json
from bench_kernel.report import render_report
from bench_kernel.report_model import load_report

# Each module starts one headless Chromium (a process of its own) for all its tests.
pytestmark = [pytest.mark.browser, pytest.mark.multiprocess, pytest.mark.slow]

TRACE = Path(__file__).parent / "data" / "trace" / "eager.json"
#: The roofline's dot colours (roofline/_plot.py): memory-bound blue, compute-bound red.
DOT_COLOURS = {"memory": (0x1F, 0x77, 0xB4), "compute": (0xD6, 0x27, 0x28)}


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("browser")
    results = write_run_json(folder / "h200.json", h200_results())
    out = folder / "report.html"
    out.write_text(render_report(load_report([str(results), str(TRACE)]), generated_at="2026-01-01T00:00:00+00:00"),
                   encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def browser(report):
    binary = find_chromium()
    if binary is None:
        if os.environ.get("BENCH_KERNEL_REQUIRE_BROWSER") == "1":
            pytest.fail("BENCH_KERNEL_REQUIRE_BROWSER=1 but no Chromium found (apt-get install chromium)")
        pytest.skip("headless Chromium not found (apt-get install chromium, or set BENCH_KERNEL_CHROMIUM)")
    with Browser(binary) as b:
        b.open(report)
        yield b


@pytest.fixture
def page(browser, report):
    """The report, freshly loaded at the default size and screen media (tests change both)."""
    browser.set_viewport(1280, 900)
    browser.call("Emulation.setEmulatedMedia", session=True, media="", features=[])
    browser.open(report)
    return browser


def _pixels(png: bytes) -> np.ndarray:
    """(height, width, 3) RGB array of a PNG screenshot."""
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)


def _count_near(pixels: np.ndarray, colour: tuple[int, int, int], tol: int = 40) -> int:
    return int((np.abs(pixels - np.array(colour)).max(axis=-1) <= tol).sum())


def test_screenshot_is_not_blank_and_the_plot_has_its_dots_where_the_plot_is(page):
    shot = _pixels(page.screenshot())
    packed = (shot[..., 0].astype(np.int32) << 16) | (shot[..., 1] << 8) | shot[..., 2]
    assert len(np.unique(packed)) > 50  # text, lines, table rules: not a blank page
    rect = page.js("(() => { const r = document.querySelector('figure[data-plot=roofline] svg')"
                   ".getBoundingClientRect(); return {x: r.left + scrollX, y: r.top + scrollY,"
                   " width: r.width, height: r.height}; })()")
    assert rect["width"] > 400 and rect["height"] > 250
    plot = _pixels(page.screenshot(clip=rect))
    dark = int((plot.sum(axis=-1) < 200).sum())
    assert dark > 0.01 * plot.shape[0] * plot.shape[1]  # axes, roof and labels drawn
    # Compute-bound GEMMs and a memory-bound op: both dot colours are in the plot...
    for bound, colour in DOT_COLOURS.items():
        assert _count_near(plot, colour) > 30, bound
    # ... and nowhere above it (the page's own palette has neither).
    above = _pixels(page.screenshot(clip={"x": 0, "y": 0, "width": 1280, "height": max(rect["y"] - 10, 1)}))
    assert _count_near(above, DOT_COLOURS["compute"], 25) == 0


def test_dom_holds_the_measured_numbers_with_units(page):
    r = h200_results()
    text = page.js("document.querySelector('#results table').innerText")
    for res in r:
        assert f"{res.median_us('graph'):.4g} µs" in text
    assert f"{r[2].achieved_tflops:.1f}" in text
    assert "NVIDIA H200" in page.js("document.querySelector('#summary').innerText")


def test_clicking_a_header_sorts_the_rows_and_clicking_again_reverses(page):
    def graph_column() -> list[float]:
        return page.js("Array.from(document.querySelectorAll('#results tbody tr'))"
                       ".map(tr => parseFloat(tr.cells[2].dataset.v))")

    def click_header(label: str) -> None:
        box = page.js(f"(() => {{ const b = Array.from(document.querySelectorAll('#results th button'))"
                      f".find(b => b.textContent === {label!r}); b.scrollIntoView({{block: 'center'}});"
                      f" const r = b.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }})()")
        page.click(*box)

    before = graph_column()
    assert before != sorted(before)  # the fixture's order is not already sorted
    click_header("graph")
    assert graph_column() == sorted(before)
    assert page.js("document.querySelector('#results th[aria-sort]').innerText").startswith("graph")
    click_header("graph")
    assert graph_column() == sorted(before, reverse=True)
    click_header("case")
    cases = page.js("Array.from(document.querySelectorAll('#results tbody tr')).map(tr => tr.cells[0].innerText)")
    assert cases == sorted(cases, key=str.lower)


def test_no_request_leaves_the_file(page, report):
    # Everything the page asked for since navigation: the document itself, nothing else.
    assert page.requests == [report.resolve().as_uri()]
    assert page.js("performance.getEntriesByType('resource').length") == 0


def test_a_script_in_a_name_is_shown_not_run(page):
    assert page.js("typeof window.__pwned") == "undefined"
    cells = page.js("Array.from(document.querySelectorAll('#results tbody td')).map(td => td.textContent)")
    assert EVIL in cells


def test_narrow_window_has_no_sideways_page_scroll(page):
    page.set_viewport(380, 800)
    assert page.js("document.documentElement.scrollWidth") <= 380
    # Wide tables scroll inside their own box instead.
    assert page.js("document.querySelector('#results .table-wrap').scrollWidth > "
                   "document.querySelector('#results .table-wrap').clientWidth")


def test_at_1280_px_no_table_is_cut_and_a_narrow_one_scrolls_with_a_cue(page):
    # The results table (13 columns) and the timeline's (13): headers wrap between words, so both
    # fit a laptop's window; narrower, a table scrolls inside its box, with a shadow on the cut side.
    wide = ("Array.from(document.querySelectorAll('.table-wrap'))"
            ".filter(w => w.scrollWidth > w.clientWidth + 1).length")
    assert page.js("document.querySelectorAll('#trace-1 .table-wrap').length") >= 5
    assert page.js(wide) == 0
    page.set_viewport(700, 900)
    assert page.js(wide) >= 2
    assert "radial-gradient" in page.js("getComputedStyle(document.querySelector('.table-wrap')).backgroundImage")


def test_print_layout_fits_every_table_on_the_page_width(page):
    page.call("Emulation.setEmulatedMedia", session=True, media="print")
    page.set_viewport(718, 1000)  # A4 at 96 dpi less 1.5 cm margins
    overflow = page.js("Array.from(document.querySelectorAll('table')).filter(t => "
                       "t.getBoundingClientRect().right > document.documentElement.clientWidth + 1).length")
    assert overflow == 0
    pdf = page.call("Page.printToPDF", session=True, printBackground=True)["data"]
    assert len(pdf) > 10_000


def test_dark_mode_follows_the_system_setting(page):
    light = page.js("getComputedStyle(document.body).backgroundColor")
    page.call("Emulation.setEmulatedMedia", session=True,
              features=[{"name": "prefers-color-scheme", "value": "dark"}])
    dark = page.js("getComputedStyle(document.body).backgroundColor")
    assert light == "rgb(255, 255, 255)" and dark == "rgb(21, 24, 28)"


@pytest.fixture(scope="module")
def comparison_report(tmp_path_factory) -> Path:
    from _report_helpers import store_sweeps

    folder = tmp_path_factory.mktemp("browser-compare")
    store_sweeps(folder / "results.db")
    out = folder / "compare.html"
    out.write_text(render_report(load_report(["1", "2"], db_path=str(folder / "results.db"))), encoding="utf-8")
    return out


def test_comparison_verdicts_are_coloured_and_sweep_plots_drawn(browser, comparison_report):
    browser.set_viewport(1280, 900)
    browser.call("Emulation.setEmulatedMedia", session=True, media="", features=[])
    browser.open(comparison_report)
    styles = browser.js("Array.from(document.querySelectorAll('#comparison .verdict')).map(v => "
                        "[v.textContent, getComputedStyle(v).color, getComputedStyle(v).backgroundColor])")
    by_word = {word: (fg, bg) for word, fg, bg in styles}
    assert sorted(w for w, _, _ in styles) == ["same"] * 5 + ["slower"]
    assert by_word["slower"] == ("rgb(180, 35, 24)", "rgb(253, 232, 230)")  # red on pink
    assert by_word["same"] == ("rgb(91, 100, 112)", "rgb(238, 241, 244)")  # grey
    assert browser.js("document.querySelectorAll('figure[data-plot=sweep] svg').length") == 2
    assert browser.requests == [comparison_report.resolve().as_uri()]
