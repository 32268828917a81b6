"""The page around the report's sections: one self-contained HTML file.

Self-contained means the file works from an e-mail attachment on a machine without network: no
CDN, no web font, no image file; styles and the sort script are inline and plots are inline SVG.
A Content-Security-Policy in the page makes that a rule the browser enforces, not a habit: nothing
may be fetched (``default-src 'none'``), and the only script allowed to run is ours, by its hash,
so a kernel name that smuggled in a ``<script>`` could not run even if escaping failed.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Sequence

from bench_kernel.report._html import Markup, el

__all__ = ["Section", "page", "SORT_JS", "CSS", "content_security_policy"]

CSS = """
:root {
  --bg: #ffffff; --fg: #1d2127; --muted: #5b6470; --line: #d9dee5; --head: #f3f5f8; --accent: #2458b3;
  --warn-bg: #fff7e0; --warn-line: #e3b341; --slower: #b42318; --slower-bg: #fde8e6;
  --faster: #1a7f37; --faster-bg: #e3f6e8; --same: #5b6470; --same-bg: #eef1f4; --bar: #9db7e6;
  --shadow: rgba(0, 0, 0, 0.25);
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #15181c; --fg: #e4e7eb; --muted: #9aa4b0; --line: #343a42; --head: #1f2329; --accent: #7aa7ff;
    --warn-bg: #2d2614; --warn-line: #9e7a1f; --slower: #ff8a80; --slower-bg: #3d1c1a;
    --faster: #6fdc8c; --faster-bg: #15301e; --same: #b0b8c2; --same-bg: #262b31; --bar: #3d5a8f;
    --shadow: rgba(0, 0, 0, 0.7);
  }
}
* { box-sizing: border-box; }
body {
  margin: 0 auto; max-width: 96rem; padding: 1.5rem clamp(0.75rem, 3vw, 2rem) 3rem;
  background: var(--bg); color: var(--fg); line-height: 1.45;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
h1 { font-size: 1.6rem; margin: 0 0 0.25rem; }
h2 { font-size: 1.25rem; margin: 2.2rem 0 0.6rem; padding-bottom: 0.25rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.05rem; margin: 1.4rem 0 0.4rem; }
p, li { max-width: 60rem; }
h1, h2, h3, caption, li { overflow-wrap: anywhere; }
.sub, .muted, caption { color: var(--muted); }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 0.92em; }
nav.toc { margin: 0.75rem 0 0; display: flex; flex-wrap: wrap; gap: 0.3rem 1rem; }
nav.toc a { color: var(--accent); text-decoration: none; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; margin: 0.5rem 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
table.facts th[scope="row"] { background: none; color: var(--muted); font-weight: normal; }
table.facts tr.differs th[scope="row"]::after { content: " \\2260"; color: var(--warn-line); font-weight: 600; }
table.facts tr.differs td { background: var(--warn-bg); }
.notes { background: var(--warn-bg); border-left: 4px solid var(--warn-line); padding: 0.5rem 1rem; margin: 0.75rem 0; }
.notes h3 { margin: 0.2rem 0 0.3rem; font-size: 0.95rem; }
.notes ul { margin: 0.2rem 0; padding-left: 1.2rem; }
/* A table wider than the page scrolls inside its box, and says so: a shadow on the side where more
   columns are (background-attachment: local moves the covers with the content, so a shadow shows
   only where the table is cut), and a scrollbar that stays visible. */
.table-wrap {
  overflow-x: auto; margin: 0.5rem 0 1rem; border: 1px solid var(--line); border-radius: 6px;
  scrollbar-width: thin;
  background:
    linear-gradient(to right, var(--bg) 30%, transparent) left / 2.5rem 100% no-repeat local,
    linear-gradient(to left, var(--bg) 30%, transparent) right / 2.5rem 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, var(--shadow), transparent) left / 0.9rem 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, var(--shadow), transparent) right / 0.9rem 100% no-repeat scroll;
}
.table-wrap > table { background: transparent; }
.info-notes { border-left: 4px solid var(--line); padding: 0.3rem 1rem; margin: 0.75rem 0; color: var(--muted); }
.info-notes h3 { margin: 0.2rem 0 0.3rem; font-size: 0.95rem; }
.info-notes ul { margin: 0.2rem 0; padding-left: 1.2rem; }
p.finding { font-size: 1.05rem; font-weight: 600; }
table { border-collapse: collapse; width: 100%; font-size: 0.875rem; }
caption { text-align: left; padding: 0.4rem 0.6rem; caption-side: top; }
th, td { padding: 0.35rem 0.4rem; border-bottom: 1px solid var(--line); vertical-align: top; }
/* Headers wrap between words ("Launch gaps" over two lines) so a wide table fits before it scrolls. */
th { background: var(--head); text-align: left; font-weight: 600; white-space: normal; overflow-wrap: normal; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
td.name { overflow-wrap: anywhere; min-width: 6rem; }
td.nowrap { white-space: nowrap; }
tbody tr:hover { background: var(--head); }
th button.sort { all: unset; cursor: pointer; display: inline-flex; gap: 0.25rem; align-items: center; }
th button.sort:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
th button.sort::after { content: "\\2195"; color: var(--muted); font-size: 0.8em; }
th[aria-sort="ascending"] button.sort::after { content: "\\25B2"; color: var(--accent); }
th[aria-sort="descending"] button.sort::after { content: "\\25BC"; color: var(--accent); }
[title] { text-decoration: underline dotted var(--muted); text-underline-offset: 3px; }
th[title], td.num[title] { text-decoration: none; }
.verdict { display: inline-block; padding: 0 0.45rem; border-radius: 999px; font-weight: 600; font-size: 0.85em; }
.verdict-slower { color: var(--slower); background: var(--slower-bg); }
.verdict-faster { color: var(--faster); background: var(--faster-bg); }
.verdict-same { color: var(--same); background: var(--same-bg); }
.verdict-inconclusive { color: var(--muted); background: transparent; box-shadow: inset 0 0 0 1px var(--line); }
.verdict-clock { color: var(--fg); background: var(--warn-bg); box-shadow: inset 0 0 0 1px var(--warn-line); }
.share { display: inline-block; height: 0.6rem; background: var(--bar); border-radius: 2px; vertical-align: middle; margin-left: 0.4rem; }
figure.plot { margin: 0.75rem 0 1.25rem; padding: 0.5rem; background: #ffffff; border: 1px solid var(--line); border-radius: 6px; }
figure.plot svg { display: block; width: 100%; max-width: 56rem; height: auto; margin: 0 auto; }
figure.plot figcaption { color: #3d444d; font-size: 0.85rem; padding: 0.25rem 0.5rem 0; }
ol.plot-key { margin: 0.25rem 0 0; padding-left: 1.6rem; columns: 2 22rem; column-gap: 2rem; }
footer { margin-top: 3rem; color: var(--muted); font-size: 0.85rem; border-top: 1px solid var(--line); padding-top: 0.6rem; }
@media (max-width: 40rem) {
  body { font-size: 14px; }
  dl.facts { gap: 0.2rem 0.6rem; }
}
@media print {
  :root { --bg: #ffffff; --fg: #000000; --head: #eeeeee; --line: #bbbbbb; }
  body { max-width: none; padding: 0; font-size: 10pt; }
  nav.toc, th button.sort::after { display: none; }
  .table-wrap { overflow: visible; border: none; background: none; }
  table { font-size: 8.5pt; }
  th, td, th.num, td.num, td.nowrap, td.name {
    white-space: normal; overflow-wrap: anywhere; min-width: 0; padding: 0.15rem 0.3rem;
  }
  thead { display: table-header-group; }
  tr, figure.plot, .notes, dl.facts { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  figure.plot svg { max-width: 100%; }
}
"""

#: Click a header to sort its table; click again to reverse. Numbers sort by their raw value
#: (``data-v``), empty cells last either way; the sort is stable, so ties keep their order.
SORT_JS = """
(function () {
  function value(cell, numeric) {
    var raw = cell.getAttribute("data-v");
    if (!numeric) return (raw === null ? cell.textContent : raw).trim().toLowerCase();
    var x = raw === null || raw === "" ? NaN : parseFloat(raw);
    return x;
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      var button = th.querySelector("button.sort");
      if (!button) return;
      button.addEventListener("click", function () {
        var asc = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        var numeric = th.classList.contains("num");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = value(a.cells[col], numeric), y = value(b.cells[col], numeric);
          if (numeric) {
            if (isNaN(x) || isNaN(y)) return isNaN(x) - isNaN(y);
            return asc ? x - y : y - x;
          }
          return asc ? x.localeCompare(y) : y.localeCompare(x);
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
})();
"""


def content_security_policy(script: str) -> str:
    """No fetches of any kind; inline styles (matplotlib's SVG uses style attributes); only
    ``script`` may run, named by its SHA-256."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; "
            f"img-src data:; base-uri 'none'; form-action 'none'")


@dataclass(frozen=True)
class Section:
    """One ``<section>`` of the report: an anchor id (ours, never user text), a heading, its body."""

    anchor: str
    heading: str
    body: Markup


def page(title: str, subtitle: str, sections: Sequence[Section], footer: str) -> str:
    """The whole document: head (CSP, styles), a table of contents, the sections, the script."""
    head = el("head", None,
              el("meta", {"charset": "utf-8"}),
              el("meta", {"name": "viewport", "content": "width=device-width, initial-scale=1"}),
              el("meta", {"http-equiv": "Content-Security-Policy", "content": content_security_policy(SORT_JS)}),
              el("meta", {"name": "generator", "content": "bench-kernel"}),
              el("title", None, title),
              el("style", None, Markup(CSS)))
    toc = el("nav", {"class": "toc", "aria-label": "Sections"},
             *(el("a", {"href": f"#{s.anchor}"}, s.heading) for s in sections))
    header = el("header", None, el("h1", None, title), el("p", {"class": "sub"}, subtitle),
                toc if len(sections) > 1 else None)
    main = el("main", None, *(el("section", {"id": s.anchor}, el("h2", None, s.heading), s.body)
                              for s in sections))
    body = el("body", None, header, main, el("footer", None, footer), el("script", None, Markup(SORT_JS)))
    return "<!doctype html>\n" + el("html", {"lang": "en"}, head, body) + "\n"

