"""``report.html``: one offline file that shows the mutation-testing report in a browser.

The viewer is the mutation-testing-elements web component (vendored, inlined: the file
fetches nothing). Above it, a summary gives the four assessments in Elenchus's words, since
the component only knows killed and survived; each mutant's description repeats its own.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from elenchus.reporting.report import finding_order, missed_now
from elenchus.reporting.stryker import ASSESSMENT_WORDS

ELEMENTS = Path(__file__).with_name("vendor") / "mutation-test-elements.js"
ELEMENTS_VERSION = "3.9.0"

_ORDER = ("protection-regression", "unprotected", "incremental-protection", "existing-protection",
          "caught-at-import", "not-comparable", "inconclusive", "blocked")

_STYLE = """
body { margin: 0; font-family: system-ui, sans-serif; }
#elenchus-summary { padding: 1rem 1.5rem; border-bottom: 1px solid #ccc; }
#elenchus-summary h1 { font-size: 1.3rem; margin: 0 0 .4rem; }
#elenchus-summary p { margin: .3rem 0; }
#elenchus-summary ul { margin: .4rem 0; padding-left: 1.2rem; }
#elenchus-summary .count { font-weight: bold; display: inline-block; min-width: 2.5em; }
"""


# Elenchus reports incidents, never a score. The viewer has no setting for that, so two of its elements
# are adjusted before it renders, without changing the vendored file: the metrics table drops its
# percentage columns (the "Mutation score" of total and of covered code, and with them the threshold
# colours), keeping every count and the source view; and the status bar that draws detected against
# total (a score as a picture) draws nothing. (A library cannot reach into the component's shadow DOM
# with CSS: it exposes no CSS parts. Should a later version rename them, the viewer still shows; the
# browser test notices.)
_NO_SCORE = """
{
const table = customElements.get('mte-metrics-table')?.prototype;
const bar = customElements.get('mte-result-status-bar')?.prototype;
if (table) {
  const tableWillUpdate = table.willUpdate;
  table.willUpdate = function (changed) {
    if (changed.has('columns')) this.columns = this.columns.filter((column) => column.category !== 'percentage');
    tableWillUpdate.call(this, changed);
  };
}
if (bar) bar.render = () => null;
}
"""


def render(stryker_report: Mapping[str, Any], report: Mapping[str, Any]) -> str:
    """The page: a summary of ``report`` and the component showing ``stryker_report``."""
    data = json.dumps(stryker_report, ensure_ascii=False).replace("<", "\\u003c")  # no "</script>" or "<!--" in it
    script = ELEMENTS.read_text(encoding="utf-8")
    return "\n".join([
        "<!doctype html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(_title(report))}</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
        _summary(report),
        '<mutation-test-report-app title-postfix="Elenchus"></mutation-test-report-app>',
        f"<!-- mutation-testing-elements {ELEMENTS_VERSION} (Apache-2.0), inlined so that this page works offline -->",
        f"<script>{script}</script>",
        f'<script id="elenchus-mutation-report" type="application/json">{data}</script>',
        f"<script>{_NO_SCORE}",
        "const app = document.querySelector('mutation-test-report-app');",
        "app.report = JSON.parse(document.getElementById('elenchus-mutation-report').textContent);",
        "function paint() { document.body.style.backgroundColor = app.themeBackgroundColor; }",
        "app.addEventListener('theme-changed', paint);",
        "paint();",
        "</script>",
        "</body>",
        "</html>",
        "",
    ])


_SCOPES = {"current-change": "the current change", "changed-tests": "the code the changed tests reach"}


def _title(report: Mapping[str, Any]) -> str:
    scope = report.get("scope", {})
    what = f"`{scope['target']}`" if scope.get("target") else _SCOPES.get(scope.get("option"), "the change")
    return f"Elenchus: how well the tests protect {what}"


def _summary(report: Mapping[str, Any]) -> str:
    counts = Counter(c["assessment"] for c in report.get("comparisons", ()))
    snapshots = report.get("snapshots", {})
    base, head = snapshots.get("base", {}), snapshots.get("head", {})
    items = [f'<li><span class="count">{counts[name]}</span> {html.escape(ASSESSMENT_WORDS[name])}</li>'
             for name in _ORDER if counts[name] or name in _ORDER[:4]]  # the four always, the rest when present
    skipped = len(report.get("not_challenged", ())) + len(report.get("rejected", ()))
    mutations = {m["id"]: m for m in report.get("mutations", ())}
    findings = []
    # (regressions first, then each incident no test catches: those a witness shows before the rest)
    ordered = sorted((c for c in report.get("comparisons", ()) if c["mutation_id"] in mutations),
                     key=lambda c: (c["assessment"] != "protection-regression", finding_order(c, mutations)))
    for comparison in ordered:
        mutation = mutations.get(comparison["mutation_id"])
        missed = missed_now(comparison)  # (what the current tests miss where the old ones could not be compared)
        if (comparison["assessment"] in _ORDER[:2] or missed) and mutation is not None:
            where = f"{mutation['location']['path']}:{mutation['location']['line']}"
            label = "Not caught by the current tests" if missed else \
                ASSESSMENT_WORDS[comparison["assessment"]].split(":")[0]
            findings.append(f"<li><strong>{html.escape(label)}</strong> ({html.escape(where)}): "
                            f"{html.escape(mutation['incident'])}</li>")
    lines = [
        '<header id="elenchus-summary">',
        f"<h1>{html.escape(_title(report))}</h1>",
        f"<p>Base {html.escape(str(base.get('rev')))} ({html.escape(str(base.get('sha') or '')[:10])}), "
        f"Head {html.escape(str(head.get('rev')))} ({html.escape(str(head.get('sha') or 'working tree')[:10])}); "
        f"{len(report.get('mutations', ()))} mutant(s) challenged.</p>",
        f"<ul>{''.join(items)}</ul>",
        *([f"<h2>What to act on</h2><ul class=\"findings\">{''.join(findings)}</ul>"] if findings else []),
        "<p>Below, each mutant's description gives its incident, its assessment and what would notice it. "
        + (f"{skipped} mutant(s) are shown as Ignored: beyond the budget or rejected before running, or run and "
           "survived with no input that tells them apart (likely equivalent); each one's reason says which. "
           if skipped else "")
        + "A run that timed out is shown as Survived (a timeout is not a catch) and one that could not tell as "
          "RuntimeError; neither counts as detected, and each one's reason says which.</p>",
        "</header>",
    ]
    return "\n".join(lines)
