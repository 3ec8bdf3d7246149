"""The claims page's stress table, read in headless Chromium from sites built with MkDocs --strict."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _site_support import REPO, copy_site_frame, mkdocs_build, serve

from conftest import real_analysis

# The table under the "Under other readings" heading (id "stress"), as rows of cell texts.
TABLE_JS = """h => {
  let el = h.nextElementSibling;
  while (el && !el.querySelector('table') && el.tagName !== 'TABLE') el = el.nextElementSibling;
  const table = el.tagName === 'TABLE' ? el : el.querySelector('table');
  return Array.from(table.rows).map(tr => Array.from(tr.cells).map(td => td.textContent.trim()));
}"""


# The titles of the admonitions in a claim's section (from its heading to the next one).
WARNINGS_JS = """h => {
  const out = [];
  for (let el = h.nextElementSibling; el && el.tagName !== 'H2'; el = el.nextElementSibling)
    if (el.classList.contains('admonition')) out.push(el.querySelector('.admonition-title').textContent);
  return out;
}"""


def _build(root: Path, out: Path) -> Path:
    result = mkdocs_build(root, out)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


@pytest.fixture(scope="module")
def stress_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpus = tmp_path_factory.mktemp("stress") / "corpus"
    shutil.copytree(REPO / "tests" / "fixtures" / "stress", corpus)
    shutil.copy(REPO / "taxonomy.yaml", corpus / "taxonomy.yaml")
    shutil.copy(REPO / "venues.yaml", corpus / "venues.yaml")
    copy_site_frame(corpus)
    built = subprocess.run(
        [sys.executable, "-m", "masrl", "build"], cwd=corpus, capture_output=True, text=True, check=False
    )
    assert built.returncode == 0, built.stdout + built.stderr
    return corpus


def _claims_page(browser: Any, site: Path) -> Iterator[tuple[Any, list[str]]]:
    errors: list[str] = []
    with serve(site) as base:
        page = browser.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(base + "/claims/")
        page.wait_for_load_state("networkidle")
        yield page, errors
        page.close()


def test_the_stress_table_shows_each_claim_per_view(
    browser: Any, stress_corpus: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    site = _build(stress_corpus, tmp_path_factory.mktemp("stress-site"))
    for page, errors in _claims_page(browser, site):
        table = page.eval_on_selector("h2#stress", TABLE_JS)
        assert table[0] == [
            "claim",
            "population",
            "Survey snapshot",
            "Living corpus",
            "Second reader",
            "Near misses retained",
            "Strict credit",
        ]
        assert table[3] == ["message-credit", "snapshot", "✅ 1", "❌ 2", "❌ 0", "✅ 1", "❌ 0"]
        assert table[5] == ["o5-learned", "snapshot", "✅ 0", "✅ 0", "✅ 0", "✅ 0", "✅ 0"]
        # Snapshot claims that the contributed paper turns are flagged in their own sections.
        flagged = {
            claim
            for claim in (
                "total",
                "total-living",
                "message-credit",
                "orchestrator-credit",
                "o5-learned",
                "credit-units",
            )
            if page.eval_on_selector(f"h2#{claim}", WARNINGS_JS) == ["Turns in the living corpus"]
        }
        assert flagged == {"total", "message-credit", "credit-units"}
        assert page.locator(".admonition.warning").count() == 3
        # The rows that move a value, with links to their pages.
        moves = page.eval_on_selector(
            "h2#message-credit", "h => h.parentElement.querySelector('#message-credit ~ ul').textContent"
        )
        assert "Second reader ❌: 1 → 0; 1 row move: −beta" in moves
        assert page.locator('#message-credit ~ ul a[href$="papers/beta/"]').count() >= 1
        assert errors == []


def test_the_real_claims_page_carries_the_computed_table(browser: Any, repo_site: Path) -> None:
    analysis = real_analysis()
    for page, errors in _claims_page(browser, repo_site):
        table = page.eval_on_selector("h2#stress", TABLE_JS)
        assert [r[0] for r in table[1:]] == [row.claim.id for row in analysis.stress]
        message = next(r for r in table if r[0] == "message-credit-broad")
        assert (message[2], message[-1]) == ("✅ 2", "❌ 1")
        assert errors == []


def test_a_view_that_moves_many_rows_lists_the_first_and_counts_the_rest() -> None:
    import re

    from masrl.publish._site import CLAIM_MOVES_SHOWN

    page = (REPO / "site" / "docs" / "claims.md").read_text("utf-8")
    lines = [line for line in page.splitlines() if re.search(r"; \d+ rows? move: ", line)]
    assert lines  # the living corpus moves the snapshot's claims
    long = 0
    for line in lines:
        total = int(re.search(r"; (\d+) rows? move: ", line).group(1))
        listed = line.split(" move: ", 1)[1]
        shown = len(re.findall(r"(?:^|, )[+−]", listed))  # each moved row starts with + or −
        more = re.search(r", and (\d+) more \(`masrl claims --stress` lists every one\)$", line)
        if total > CLAIM_MOVES_SHOWN:
            long += 1
            assert (shown, int(more.group(1)) if more else None) == (CLAIM_MOVES_SHOWN, total - CLAIM_MOVES_SHOWN), (
                line[:120]
            )
        else:
            assert more is None
    assert long > 0  # the case is exercised on the real page
