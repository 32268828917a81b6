"""The HTML report without a browser: what the file holds (numbers with units, escaped names,
sections by input, no way to reach the network), the CLI, and ``-o x.html`` on table commands.
What a browser does with it is in ``test_report_browser.py``."""

from __future__ import annotations

import base64
import hashlib
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from _report_helpers import EVIL, LONG_KERNEL, h200_results, write_run_json
from bench_kernel.report import html_for_output, render_report
from bench_kernel.report._html import clipped, el, esc  # the builder's own contract
from bench_kernel.report._html_page import SORT_JS
from bench_kernel.report_model import (
    build_report,
    load_inputs,
    load_report,
    report_for_output,
)

DATA = Path(__file__).parent / "data" / "trace"
WHEN = "2026-01-01T00:00:00+00:00"


class _Cells(HTMLParser):
    """Text of every <td>, with its attributes, and every tag seen (to count <script>s)."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[tuple[dict[str, str | None], str]] = []
        self.tags: list[str] = []
        self._in: dict[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "td":
            self._in, self._text = dict(attrs), []

    def handle_endtag(self, tag):
        if tag == "td" and self._in is not None:
            self.cells.append((self._in, "".join(self._text)))
            self._in = None

    def handle_data(self, data):
        if self._in is not None:
            self._text.append(data)


def _parse(html: str) -> _Cells:
    p = _Cells()
    p.feed(html)
    return p


@pytest.fixture(scope="module")
def h200_file(tmp_path_factory) -> Path:
    return write_run_json(tmp_path_factory.mktemp("report") / "h200.json", h200_results())


@pytest.fixture(scope="module")
def h200_html(h200_file) -> str:
    return render_report(load_report([str(h200_file)]), generated_at=WHEN)


def test_builder_escapes_text_and_attributes_but_not_markup():
    assert el("td", {"title": 'a"b'}, "<x>&") == '<td title="a&quot;b">&lt;x&gt;&amp;</td>'
    assert el("p", None, el("b", None, "ok")) == "<p><b>ok</b></p>"
    assert esc("[bold]x[/bold]") == "[bold]x[/bold]"  # not rich markup: plain text in HTML
    assert clipped("short") == ("short", None)
    shown, full = clipped(LONG_KERNEL)
    assert full == LONG_KERNEL and len(shown) < len(LONG_KERNEL) and shown.startswith("void cutlass::Kernel2<")


def test_hostile_names_are_text_and_only_our_script_exists(h200_html):
    p = _parse(h200_html)
    assert p.tags.count("script") == 1
    # The name shows verbatim as cell text (the parser unescaped it), never as a tag.
    assert any(text == EVIL for _, text in p.cells)
    assert "<script>window.__pwned" not in h200_html
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt; &quot;q&quot; &amp; [bold]x[/bold]" in h200_html


def test_the_page_forbids_every_fetch_and_allows_only_its_own_script(h200_html):
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', h200_html).group(1)
    csp = csp.replace("&#x27;", "'")
    digest = base64.b64encode(hashlib.sha256(SORT_JS.encode()).digest()).decode()
    assert "default-src 'none'" in csp and f"script-src 'sha256-{digest}'" in csp
    assert f"<script>{SORT_JS}</script>" in h200_html
    # Nothing that could load: no src/href to a URL, no CSS import or url() to the network.
    assert not re.search(r'\bsrc=|href="(?!#)|@import|url\((?!#)', h200_html)


def test_results_table_numbers_carry_units_and_sort_keys(h200_html, h200_file):
    r = h200_results()
    p = _parse(h200_html)
    by_value = {a.get("data-v"): text for a, text in p.cells if a.get("data-v")}
    gemm = r[0]
    assert by_value[repr(gemm.median_us("graph"))] == f"{gemm.median_us('graph'):.4g} µs"
    assert by_value[repr(gemm.median_us("events"))].endswith(" µs")
    assert f"{r[2].achieved_tflops:.1f}" in {text for _, text in p.cells}  # TFLOP/s of the big GEMM
    # The CI and sample count are on hover of each median.
    titles = [a["title"] for a, _ in p.cells if a.get("data-v") == repr(gemm.median_us("graph"))]
    assert titles and titles[0].startswith("95% CI ") and "n = 40 samples of 20 call(s)" in titles[0]


def test_summary_names_device_driver_versions_commit_and_what_to_distrust(h200_html):
    text = re.sub(r"<[^>]+>", " ", h200_html)
    for fact in ("NVIDIA H200", "570.86.15", "12.8", "2.11.0", "3.6.0", "abc1234", "SM clock 1980 → 1980 MHz"):
        assert fact in text, fact
    assert "What to distrust" in text
    # A run --json file carries no date: the page says which date it shows.
    assert re.search(r"<dt>file modified</dt><dd>\d{4}-\d\d-\d\dT", h200_html)
    assert "kernel: stopped at the 0.5 s bound" in text


def test_long_kernel_names_are_clipped_with_the_full_name_on_hover(h200_html):
    p = _parse(h200_html)
    # The breakdown shows the short name, the full mangled-looking name is the title.
    assert any(a.get("title") == LONG_KERNEL and text == "cutlass 64x64_32x6 tn" for a, text in p.cells)


def test_roofline_is_inline_svg_with_numbered_points_and_a_key(h200_html):
    assert h200_html.count("<svg") == 1 and 'data-plot="roofline"' in h200_html
    svg = h200_html[h200_html.index("<svg"):h200_html.index("</svg>")]
    assert 'id="roof0-point-0"' in svg and 'id="roof0-point-3"' in svg  # one dot per case, ids prefixed
    assert "<text" not in svg  # text drawn as paths: looks the same without the fonts
    key = re.search(r'<ol class="plot-key">(.*?)</ol>', h200_html).group(1)
    assert re.findall(r"<li>(.*?)</li>", key)[:3] == [f"gemm M={m} N=4096 K=4096" for m in (128, 1024, 8192)]


def test_per_kernel_breakdown_per_case_with_shares(h200_html):
    assert h200_html.count("device activities") == 3  # the three GEMMs have kernels; the fourth has none
    p = _parse(h200_html)
    shares = [text for a, text in p.cells if a.get("data-v") in ("90.0", "10.0")]
    assert shares.count("90.0%") == 3 and shares.count("10.0%") == 3


def test_same_inputs_give_the_same_bytes(h200_file, h200_html):
    # The module's page was rendered earlier in this process, from its own load of the file.
    assert render_report(load_report([str(h200_file)]), generated_at=WHEN) == h200_html


def test_trace_input_gives_timeline_inventory_categories_phases_and_layers():
    from bench_kernel.trace import load_trace, timeline

    html = render_report(load_report([str(DATA / "eager.json")]), generated_at=WHEN)
    p = _parse(html)
    texts = [t for _, t in p.cells]
    assert "attn&lt;lambda, lambda&gt;" in html and "attn<lambda, lambda>" in texts
    # The trace commands' own tables, with their headers (inventory, phases, layers).
    assert "eager.json: 42 kernels, 606 µs" in html
    assert "eager.json: phases by shapes" in html
    assert "eager.json: period 4 kernels x 9 layers" in html
    summary = html[html.index("eager.json: phases by shapes"):]
    phase_cells = [t for _, t in _parse(summary[:summary.index("</table>")]).cells]
    assert phase_cells.count("prefill") == 1 and phase_cells.count("decode") == 1
    # The timeline's finding comes first in the trace's section, as `bench-kernel timeline` says it.
    rep = timeline(load_trace(DATA / "eager.json"))
    section = html[html.index('id="trace-1"'):]
    headline = f"eager.json: GPU busy {rep.overall.busy_pct:.1f}% of the device span, 3 steps by rule profiler_step"
    assert section.index(headline) < section.index("eager.json: 42 kernels")
    assert esc(rep.overall.diagnosis) in section
    verdict = rep.overall.diagnosis.split(":")[0]
    assert f"<dt>GPU busy</dt><dd>{rep.overall.busy_pct:.1f}% of " in html and f" ({verdict})</dd>" in html  # summary
    # The chart: one bar segment per window and cause, inline SVG like the other plots.
    svg = section[section.index('<figure class="plot" data-plot="timeline">'):section.index("</svg>")]
    windows = 1 + len(rep.steps)
    for cause in ("busy", "host_bound", "sync_wait", "launch_gap", "dependency_wait"):
        assert len(re.findall(rf'id="timeline1-{cause}-\d+"', svg)) == windows, cause


def test_an_analysis_that_does_not_apply_is_named_with_its_reason():
    # A capture trace's one kernel runs outside every step: no layers; the report says so, in
    # the trace's section and among the notes to distrust, rather than dropping the section.
    html = render_report(load_report([str(DATA / "capture.json")]), generated_at=WHEN)
    assert html.count("layers: not shown: none of its 1 kernels was launched inside a step") == 1
    assert "capture.json: layers not shown: none of its 1 kernels was launched inside a step" in html


@pytest.mark.multiprocess
def test_report_renders_without_matplotlib_and_says_why(h200_file):
    code = ("import sys; sys.modules['matplotlib'] = None\n"
            "from bench_kernel.report import render_report\n"
            "from bench_kernel.report_model import load_report\n"
            f"print(render_report(load_report([{str(h200_file)!r}])))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "<svg" not in out
    assert "plots left out: matplotlib is not installed (pip install &#x27;bench-kernel[plot]&#x27;)" in out
    assert "Per-kernel breakdown" in out


def test_html_for_output_of_run_is_the_report_and_of_other_commands_their_tables():
    from bench_kernel.report import Column, Table

    data = {"results": [r.to_dict() for r in h200_results()]}
    html = html_for_output("bench-kernel run", [], model=report_for_output("bench-kernel run", data), generated_at=WHEN)
    assert "Per-kernel breakdown" in html and 'data-plot="roofline"' in html
    t = Table([Column("short", "Kernel", detail="name"), Column("total_us", "Total", "duration_us")],
              [{"short": "k<1>", "name": "void k<1>(float*)", "total_us": 1500.0}], title="inv")
    assert report_for_output("bench-kernel inventory", {"kernels": []}) is None
    html = html_for_output("bench-kernel inventory", [t], generated_at=WHEN)
    assert '<td class="name nowrap" title="void k&lt;1&gt;(float*)">k&lt;1&gt;</td>' in html
    assert '<td class="num" data-v="1500.0">1.5 ms</td>' in html


def test_cli_report_writes_the_file_and_json_says_what(run_cli, h200_file, tmp_path):
    out = tmp_path / "r.html"
    r = run_cli("report", str(h200_file), str(DATA / "eager.json"), "-o", str(out), "--json")
    assert r.exit_code == 0, r.stderr
    import json

    info = json.loads(r.stdout)
    assert info["output"] == str(out) and info["bytes"] == len(out.read_bytes())
    assert [(i["label"], i["kind"]) for i in info["inputs"]] == [("h200.json", "results"), ("eager.json", "trace")]
    assert "Trace: eager.json" in out.read_text()


def test_table_command_with_html_path_writes_the_report(run_cli, tmp_path):
    out = tmp_path / "inv.html"
    r = run_cli("inventory", str(DATA / "eager.json"), "-o", str(out))
    assert r.exit_code == 0, r.stderr
    html = out.read_text()
    assert html.startswith("<!doctype html>") and "bench-kernel inventory" in html
    assert "attn&lt;lambda, lambda&gt;" in html and "252 µs" in html


# --- stored runs: what the results store holds, read back ------------------------------------------

@pytest.fixture(scope="module")
def two_sweeps(tmp_path_factory) -> Path:
    from _report_helpers import store_sweeps

    db = tmp_path_factory.mktemp("store") / "results.db"
    assert store_sweeps(db) == (1, 2)
    return db


@pytest.mark.slow
def test_stored_sweeps_give_the_pivot_the_best_provider_and_their_plots(two_sweeps):
    html = render_report(load_report(["1", "latest"], db_path=str(two_sweeps)), generated_at=WHEN)
    assert "sweep sweep_gemm.py:sweep on NVIDIA H200 (run 1) | N=4096 K=4096" in html
    assert "fastest per point: sweep_gemm.py:sweep on NVIDIA H200 (run 2)" in html
    assert html.count('data-plot="sweep"') == 2 and html.count('data-plot="roofline"') == 1
    assert f"1 in {two_sweeps}" in html  # where the run came from


@pytest.mark.slow
def test_a_later_input_is_compared_with_the_first_and_verdicts_are_coloured(two_sweeps):
    from bench_kernel.results import open_store

    html = render_report(load_report(["1", "2"], db_path=str(two_sweeps)), generated_at=WHEN)
    rows = re.findall(r"<tr>(<td[^>]*>(?:torch|triton)</td>.*?)</tr>", html[html.index('id="comparison"'):])
    verdicts = {re.search(r">(M=\d+) N=4096 K=4096<", r).group(1) + " " + re.search(r">(torch|triton)<", r).group(1):
                re.search(r'class="verdict verdict-(\w+)">(\w+)</span>', r).groups() for r in rows[:6]}
    assert verdicts.pop("M=8192 triton") == ("slower", "slower")  # made 10% slower in run 2
    assert set(verdicts.values()) == {("same", "same")} and len(verdicts) == 5
    # The times shown are what the ratio is of: the geometric mean of each side's stored round times.
    with open_store(two_sweeps) as store:
        a = {p.key: p for p in store.points(store.run(1))}
        b = {p.key: p for p in store.points(store.run(2))}
    slow = next(k for k in a if k[0] == "triton" and '"M":8192' in k[1])
    row = next(r for r in rows if ">M=8192 N=4096 K=4096<" in r and ">triton<" in r)
    import statistics

    for p in (a[slow], b[slow]):
        t = statistics.geometric_mean(p.result.measurements[p.result.primary_method].round_times_us)
        assert f'">{t:.4g} µs<' in row, (t, row)


def test_one_provider_of_each_run_compares_on_the_point_alone(two_sweeps):
    inputs = load_inputs(["latest~1:torch", "latest:triton"], db_path=str(two_sweeps))
    assert [(i.label, i.provider, len(i.points)) for i in inputs] == [("run 1:torch", "torch", 3),
                                                                      ("run 2:triton", "triton", 3)]
    html = render_report(build_report(inputs), generated_at=WHEN)
    assert "compare run 1:torch (A) -&gt; run 2:triton (B)" in html
    assert html.count('<td class="name nowrap">torch -&gt; triton</td>') == 3


def test_the_stored_roofline_is_shown_as_stored(tmp_path):
    # Had the report re-placed the result against today's peak table it would show 62.4%;
    # the store says 12.3%, and that is what the page must show.
    from _report_helpers import h200_results
    from bench_kernel.results import open_store

    r = h200_results()[0]
    stored = r.replace(roofline=r.roofline.replace(pct_of_roof=12.3))
    with open_store(tmp_path / "r.db") as store:
        run = store.start_run(kind="run", name="gemm", config={}, env=r.env)
        store.save_result(run.id, stored)
        store.finish_run(run.id)
    html = render_report(load_report(["latest"], db_path=str(tmp_path / "r.db")), generated_at=WHEN)
    assert '<td class="num" data-v="12.3">12.3%</td>' in html
    assert f"{r.roofline.pct_of_roof:.1f}%" not in html


def test_a_sweep_with_html_output_is_the_report(two_sweeps):
    from bench_kernel.results import open_store

    with open_store(two_sweeps) as store:
        run = store.run(1)
        data = {"run": run.to_dict(), "points": [p.to_dict() for p in store.points(run)]}
    html = html_for_output("bench-kernel sweep", [], model=report_for_output("bench-kernel sweep", data),
                           generated_at=WHEN)
    assert "sweep sweep_gemm.py:sweep on NVIDIA H200 (run 1)" in html and 'data-plot="sweep"' in html
    assert "<dt>run started</dt>" in html


def test_facts_of_several_inputs_sit_side_by_side_and_a_differing_driver_is_marked(tmp_path):

    a = write_run_json(tmp_path / "a.json", h200_results()[:1])
    newer = [r.replace(env=dict(r.env, driver="580.159.04")) for r in h200_results()[:1]]
    b = write_run_json(tmp_path / "b.json", newer)
    html = render_report(load_report([str(a), str(b)]), generated_at=WHEN)
    table = html[html.index('<table class="facts">'):]
    assert re.search(r'<tr class="differs"><th scope="row">driver</th><td class="name">570.86.15</td>'
                     r'<td class="name">580.159.04</td></tr>', table)
    assert '<tr><th scope="row">device</th>' in table  # the same device: not marked


def test_the_page_styles_and_script_hold_no_control_characters():
    # A CSS escape written as "\\2260" in Python source once became an octal escape (a control
    # character and a stray "0") and drew a box instead of the "≠" mark.
    from bench_kernel.report._html_page import CSS

    for text in (CSS, SORT_JS):
        assert [c for c in text if not (c.isprintable() or c in "\n")] == []


def test_compare_with_an_html_path_writes_its_table_with_coloured_verdicts(run_cli, two_sweeps, tmp_path):
    out = tmp_path / "cmp.html"
    r = run_cli("compare", "1", "2", "--db", str(two_sweeps), "-o", str(out))
    assert r.exit_code == 1  # the regression still gates
    html = out.read_text()
    assert html.count('<span class="verdict verdict-same">same</span>') == 5
    assert html.count('<span class="verdict verdict-slower">slower</span>') == 1


def test_a_slowdown_the_lower_clock_explains_is_marked_clock_in_the_report(tmp_path, run_cli):
    # Two identical GEMM sweeps on a power-capped H200: run 2 sampled at lower SM clocks.
    from _results_helpers import clocked_point
    from bench_kernel.results import open_store

    db = tmp_path / "r.db"
    runs = [{"torch": (50.0, 1980), "triton": (51.8, 1980)}, {"torch": (50.2, 1980), "triton": (58.8, 1515)}]
    with open_store(db) as store:
        for i, points in enumerate(runs):
            run = store.start_run(kind="sweep", name="sweep_gemm.py:sweep", config={"providers": ["torch", "triton"]},
                                  env={"device": "NVIDIA H200"})
            for j, (provider, (us, mhz)) in enumerate(points.items()):
                store.save_result(run.id, clocked_point(provider, {"M": 1024}, us, mhz, seed=10 * i + j).result)
            store.finish_run(run.id)
    html = render_report(load_report(["1", "2"], db_path=str(db)), generated_at=WHEN)
    section = html[html.index('id="comparison"'):]
    badges = re.findall(r'<span class="([^"]+)"(?: title="([^"]*)")?>([^<]+)</span>', section)
    assert badges == [("verdict verdict-same", "", "same"),
                      ("verdict verdict-slower verdict-clock",
                       "SM clock A 1980 MHz, B 1515 MHz: the lower clock alone can explain this", "slower (clock)")]
    assert "<li>triton M=1024: slower (clock): SM clock A 1980 MHz, B 1515 MHz (clock ratio 1.307, time ratio" in section
    assert ".verdict-clock {" in html  # styled apart from a regression's red
    # Run 2's own pivot and fastest-provider tables say its points ran at very different clocks.
    spread = ("SM clock: 1 of 2 points ran more than 10% below this run&#x27;s highest median clock (1980 MHz; "
              "lowest 1515 MHz): triton M=1024; ")
    assert html.count(spread) == 2 and html.count("SM clock: ") == 2
    out = tmp_path / "cmp.html"
    assert run_cli("compare", "1", "2", "--db", str(db), "-o", str(out)).exit_code == 0  # not a regression
    assert out.read_text().count('class="verdict verdict-slower verdict-clock"') == 1


def test_a_settled_steady_hold_is_summed_up_not_listed_as_distrust():
    # measure's hold note carries its code and the seconds held; the report sums those up, by the code
    from bench_kernel.measure import Settle

    held = Settle(True, 4.5, ((100.0, 1470.0),) * 3).note()
    assert (held.code, held.kind, held.data["held_s"]) == ("steady-held", "info", 4.5)
    unsettled = Settle(False, 20.1, ((100.0, 1470.0),)).note()
    assert (unsettled.code, unsettled.kind) == ("steady-unsettled", "warning")  # not settled: still distrust


@pytest.mark.parametrize("command", ["inventory", "phases", "layers", "timeline"])
def test_the_trace_section_shows_the_trace_commands_own_tables(run_cli, command):
    # One definition (report._trace_tables): each table the command prints is in the report's
    # trace section with the same title and the same headers.
    r = run_cli(command, str(DATA / "eager.json"), "--md")
    assert r.exit_code == 0, r.stderr
    printed = re.findall(r"^### (.+)\n\n(\|.+\|)\n", r.stdout, re.M)
    assert printed
    html = render_report(load_report([str(DATA / "eager.json")]), generated_at=WHEN)
    section = html[html.index('id="trace-1"'):]
    for title, header in printed:
        start = section.index(f"<caption>{esc(title)}</caption>")
        heads = re.findall(r'<button class="sort" type="button">([^<]*)</button>', section[start:section.index("</thead>", start)])
        assert heads == [esc(h.strip()) for h in header.strip("|").split("|")], title
