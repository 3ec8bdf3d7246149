"""The published site, built with MkDocs --strict and read in a real headless Chromium, offline."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest
from _site_support import (
    REPO,
    Visit,
    copy_site_frame,
    mkdocs_build,
    serve,
    serve_like_pages,
)

from conftest import real_corpus
from masrl.publish._site import PAPERS_PER_PAGE, rows_of

CORPUS = real_corpus()  # loaded once per test process, for every module that reads it
FAMILY = {p.key: CORPUS.taxonomy.family_of(p.reward_type) for p in CORPUS.papers}
SITE_URL = "https://masrl.github.io/masrl/"  # site_url's default in site/mkdocs.yml


def test_mkdocs_strict_build_has_no_warnings(repo_build: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    out, result = repo_build
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stderr + result.stdout
    assert (out / "papers" / "index.html").is_file()
    assert (out / "papers" / "c3" / "index.html").is_file()
    assert (out / "taxonomy" / "credit-unit" / "orchestrator" / "index.html").is_file()
    assert (out / "whats-new" / "index.html").is_file()
    assert (out / "feed.xml").is_file()


def test_papers_page_weight_is_within_budget(repo_site: Path) -> None:
    from masrl.bench._targets import PAGE_GZIP_BUDGET_KB, page_weight

    # The budget is what the page transfers when it loads (gzip): its HTML with the inline rows,
    # and papers.js; `masrl bench` holds it at GROWN_ENTRIES entries too. The details (authors, summaries)
    # come only when a reader searches or exports.
    _, html, js, details = page_weight(repo_site)
    assert html + js <= PAGE_GZIP_BUDGET_KB
    assert details > 0


def test_summaries_and_authors_are_not_in_the_page_but_in_its_details(repo_site: Path) -> None:
    from masrl.publish._site import DETAILS_FILE

    html = (repo_site / "papers" / "index.html").read_text("utf-8")
    data = json.loads(html.split('id="masrl-paper-data">', 1)[1].split("</script>", 1)[0])
    more = json.loads((repo_site / DETAILS_FILE).read_text("utf-8"))
    rows = rows_of(data["cols"])
    assert len(more["rows"]) == len(rows) == len(CORPUS.papers)
    for row, extra, paper in zip(rows, more["rows"], CORPUS.papers, strict=True):
        assert row["k"] == paper.key
        assert not {"x", "au"} & set(row)
        assert (extra["x"], extra["au"]) == (paper.summary, list(paper.authors))
        assert paper.summary not in html


def test_no_page_references_an_outside_host_for_assets(repo_site: Path) -> None:
    # a canonical link names the page's published address; browsers do not fetch it
    asset = re.compile(
        r"""<(?:script|link(?![^>]*rel="canonical")|img)\b[^>]*(?:src|href)=["'](https?:)?//(?!127\.0\.0\.1)"""
    )
    for page in repo_site.rglob("*.html"):
        text = page.read_text("utf-8")
        assert "fonts.googleapis" not in text, page
        assert not asset.search(text), page


@pytest.fixture
def visit(browser: Any, repo_site: Path) -> Iterator[Visit]:
    with serve(repo_site) as base:
        v = Visit(browser, base)
        yield v
        assert v.errors == [], "console errors"
        assert v.outside() == [], "requests to outside hosts"
        v.close()


def heading(page: Any) -> str:
    """The page's h1 without the permalink anchor MkDocs appends."""
    return page.eval_on_selector(
        "h1",
        "h => Array.from(h.childNodes).filter(n => !(n.classList && n.classList.contains('headerlink')))"
        ".map(n => n.textContent).join('')",
    )


def rows(page: Any) -> list[list[str]]:
    return page.eval_on_selector_all(
        ".masrl-table tbody tr", "trs => trs.map(tr => Array.from(tr.cells).map(td => td.textContent))"
    )


def view_titles(page: Any) -> list[str]:
    """The titles of every row of the current view, page by page, as a reader clicks through."""
    titles = [r[0] for r in rows(page)]
    next_page = page.locator(".masrl-pager button", has_text="next")
    while next_page.count() and next_page.is_enabled():
        next_page.click()
        titles += [r[0] for r in rows(page)]
    return titles


def test_papers_page_lists_every_entry(visit: Visit) -> None:
    page = visit.go("/papers/")
    n = len(CORPUS.papers)
    assert len(rows(page)) == min(n, PAPERS_PER_PAGE)  # the rest are a page click away
    assert page.text_content(".masrl-count") == f"{n} of {n} entries"


def choose(page: Any, key: str, *values: str) -> None:
    """Tick *values* in the filter list *key*, as a reader does: open the list, click each box."""
    facet = f'.masrl-facet[data-k="{key}"]'
    if page.get_attribute(facet, "open") is None:
        page.click(f"{facet} > summary")
    for value in values:
        page.check(f'{facet} input[value="{value}"]')


def test_text_and_family_filter_narrow_the_rows(visit: Visit) -> None:
    page = visit.go("/papers/")
    page.fill('input[name="q"]', "orchestrat")
    page.evaluate("window.masrlPapers.ready()")  # authors and summaries are searched once loaded
    choose(page, "f", "R7")
    expected = [
        p
        for p in CORPUS.papers
        if FAMILY[p.key] == "R7"
        and "orchestrat" in " ".join((p.title, p.key, p.summary, " ".join(p.authors), p.venue)).lower()
    ]
    assert len(rows(page)) == len(expected) > 0
    assert page.text_content(".masrl-count") == f"{len(expected)} of {len(CORPUS.papers)} entries"
    assert "f=R7" in page.url
    assert "q=orchestrat" in page.url


def test_a_filter_takes_several_values_any_of(visit: Visit) -> None:
    page = visit.go("/papers/")
    choose(page, "u", "orchestrator", "team")
    expected = {p.title for p in CORPUS.papers if p.credit_unit in ("orchestrator", "team")}
    assert sorted(view_titles(page)) == sorted(expected)
    assert "u=orchestrator&u=team" in page.url
    assert page.text_content('.masrl-facet[data-k="u"] .masrl-facet__value') == "Orchestrator, Team"


def test_searching_a_unicode_name_finds_it(visit: Visit) -> None:
    page = visit.go("/papers/?q=Grégoire")
    assert [r[0] for r in rows(page)] == [p.title for p in CORPUS.papers if any("Grégoire" in a for a in p.authors)]


def test_the_details_load_only_when_a_reader_searches_or_exports(visit: Visit) -> None:
    from masrl.publish._site import DETAILS_FILE

    # Arrange: a word only summaries hold
    summaries = " ".join(p.summary.lower() for p in CORPUS.papers)
    others = " ".join(" ".join((p.title, p.key, p.venue, *p.authors)).lower() for p in CORPUS.papers)
    word = next(w for w in sorted(set(summaries.split())) if len(w) > 6 and w.isalpha() and w not in others)
    # Act, Assert: the page loads without them
    page = visit.go("/papers/")
    assert not [u for u in visit.requests if u.endswith(DETAILS_FILE)]
    page.fill('input[name="q"]', word)
    page.evaluate("window.masrlPapers.ready()")
    assert [u for u in visit.requests if u.endswith(DETAILS_FILE)] == [visit.base + "/" + DETAILS_FILE]
    assert sorted(view_titles(page)) == sorted(p.title for p in CORPUS.papers if word in p.summary.lower())


def test_a_code_link_opens_the_entry_page_until_the_details_bring_its_address(visit: Visit) -> None:
    # Arrange: the rows of entries with code, as a reader filters them
    page = visit.go("/papers/?cd=yes")
    code = {p.key: p.code for p in CORPUS.papers if p.code}
    links = ".masrl-table tbody tr td:last-child a:last-child"
    # Assert: before the details load, each code link leads to the entry's own page, which shows the address
    before = page.eval_on_selector_all(links, "as => as.map(a => [a.textContent, a.getAttribute('href')])")
    assert before
    assert all(text == "code" and href.removesuffix("/") in code for text, href in before)
    # Act: a search loads the details
    page.focus('input[name="q"]')
    assert page.evaluate("window.masrlPapers.ready()") is True
    # Assert: the same links now point at the code itself
    after = page.eval_on_selector_all(links, "as => as.map(a => a.getAttribute('href'))")
    assert after == [code[href.removesuffix("/")] for _, href in before]


def test_without_the_details_the_page_still_filters_and_says_why_search_is_short(
    browser: Any, repo_site: Path, tmp_path: Path
) -> None:
    import shutil

    from masrl.publish._site import DETAILS_FILE

    # Arrange: the site without its details file
    site = tmp_path / "site"
    shutil.copytree(repo_site, site)
    (site / DETAILS_FILE).unlink()
    with serve(site) as base:
        v = Visit(browser, base)
        # Act
        page = v.go("/papers/?q=orchestrat")
        # Assert: titles, keys and venues are still searched; the notice says what is missing
        expected = {p.title for p in CORPUS.papers if "orchestrat" in " ".join((p.title, p.key, p.venue)).lower()}
        assert sorted(view_titles(page)) == sorted(expected)
        assert "could not be loaded (404 File not found)" in page.text_content(".masrl-notice")
        assert page.evaluate("window.masrlPapers.ready()") is False  # so the export buttons write nothing
        assert v.dialogs == []
        v.close()


def test_two_clicks_reach_orchestration_orchestrator_2026(visit: Visit) -> None:
    page = visit.go("/papers/?y=2026")
    choose(page, "f", "R7")
    choose(page, "u", "orchestrator")
    expected = {
        p.title for p in CORPUS.papers if FAMILY[p.key] == "R7" and p.credit_unit == "orchestrator" and p.year == 2026
    }
    assert sorted(view_titles(page)) == sorted(expected)
    # the option counts follow the other filters
    count = page.text_content('.masrl-facet[data-k="u"] input[value="orchestrator"] ~ .masrl-n')
    assert count == f" ({len(expected)})"


@pytest.mark.parametrize(
    ("query", "keep"),
    [
        # links shared before the filters took several values open the same view
        ("?u=orchestrator&y=2026", lambda p: p.credit_unit == "orchestrator" and p.year == 2026),
        ("?f=R7&rl=yes", lambda p: FAMILY[p.key] == "R7" and p.rl == "yes"),
        (
            "?o=O5:designed",
            lambda p: p.subdecisions is not None and getattr(p.subdecisions.get("O5"), "code", "") == "designed",
        ),
        ("?s=yes", lambda p: p.strict_credit),
        ("?cd=yes", lambda p: bool(p.code)),
        ("?cd=yes&y=2025", lambda p: bool(p.code) and p.year == 2025),
        # several values, repeated or comma-separated
        ("?u=orchestrator,team&y=2026", lambda p: p.credit_unit in ("orchestrator", "team") and p.year == 2026),
    ],
)
def test_shared_links_open_the_same_view(visit: Visit, query: str, keep: Any) -> None:
    page = visit.go("/papers/" + query)
    assert sorted(view_titles(page)) == sorted(p.title for p in CORPUS.papers if keep(p))
    assert page.locator(".masrl-notice").is_hidden()


@pytest.mark.parametrize("query", ["?u=bogus", "?u=orchestrator&u=bogus", "?sort=nonsense", "?zz=1"])
def test_unknown_url_values_are_explained_not_silently_empty(visit: Visit, query: str) -> None:
    page = visit.go("/papers/" + query)
    notice = page.locator(".masrl-notice")
    assert notice.is_visible()
    assert "does not have" in notice.text_content()
    wanted = query.split("=", 1)[1].split("&")[0] if "bogus" not in query else "bogus"
    assert wanted in notice.text_content() or "zz" in notice.text_content()
    assert len(rows(page)) > 0  # the unknown value is left out, not turned into an empty table


@pytest.mark.parametrize(("value", "keep"), [("yes", lambda p: bool(p.code)), ("no", lambda p: not p.code)])
def test_the_code_filter_keeps_the_entries_with_or_without_code(visit: Visit, value: str, keep: Any) -> None:
    # Arrange
    page = visit.go("/papers/")
    n, total = sum(1 for p in CORPUS.papers if keep(p)), len(CORPUS.papers)
    # Act: tick the box, as a reader does
    choose(page, "cd", value)
    # Assert
    assert 0 < n < total
    assert page.text_content(".masrl-count") == f"{n} of {total} entries"
    assert page.url.endswith(f"?cd={value}")
    labels = page.eval_on_selector_all('.masrl-facet[data-k="cd"] label', "ls => ls.map(l => l.textContent)")
    with_code = sum(1 for p in CORPUS.papers if p.code)
    assert labels == [f"has code ({with_code})", f"no code listed ({total - with_code})"]
    links = page.eval_on_selector_all(".masrl-table tbody tr td:last-child", "tds => tds.map(td => td.textContent)")
    assert all(("code" in cell) == (value == "yes") for cell in links)


def test_the_statistics_page_counts_the_papers_with_code(visit: Visit) -> None:
    page = visit.go("/statistics/")
    with_code = sum(1 for p in CORPUS.papers if p.code)
    assert f"{with_code} of the {len(CORPUS.papers)} entries link their official code" in page.text_content("article")
    # the first table after the heading (Material wraps each table in its own boxes)
    rows = page.eval_on_selector(
        "#code",
        """h => {
            let e = h.nextElementSibling;
            while (e && e.tagName !== "TABLE" && !e.querySelector("table")) e = e.nextElementSibling;
            const table = e.tagName === "TABLE" ? e : e.querySelector("table");
            return Array.from(table.tBodies[0].rows).map(tr => Array.from(tr.cells).map(td => td.textContent));
        }""",
    )
    assert rows[0] == [
        "RL method rl_method",
        str(sum(1 for p in CORPUS.papers if p.code and p.category == "rl_method")),
        str(sum(1 for p in CORPUS.papers if p.category == "rl_method")),
    ]


def test_sorting_by_year_orders_the_rows(visit: Visit) -> None:
    page = visit.go("/papers/")
    page.click('th[data-sort="y"] button')
    years = [int(r[1]) for r in rows(page)]
    assert years == sorted(years, reverse=True)
    assert page.get_attribute('th[data-sort="y"]', "aria-sort") == "descending"
    page.click('th[data-sort="y"] button')
    years = [int(r[1]) for r in rows(page)]
    assert years == sorted(years)
    assert "sort=y" in page.url


def test_sorting_by_venue(visit: Visit) -> None:
    page = visit.go("/papers/")
    page.click('th[data-sort="ve"] button')
    venues = [r[2] for r in rows(page)]
    assert venues == sorted((p.venue for p in CORPUS.papers), key=str.lower)[:PAPERS_PER_PAGE]
    assert page.get_attribute('th[data-sort="ve"]', "aria-sort") == "ascending"


def test_the_url_restores_a_filtered_view(visit: Visit) -> None:
    page = visit.go("/papers/?f=R7&u=orchestrator&y=2026&sort=t&dir=asc")
    titles = [r[0] for r in rows(page)]
    assert titles == sorted(titles, key=str.lower)
    assert len(titles) == sum(
        FAMILY[p.key] == "R7" and p.credit_unit == "orchestrator" and p.year == 2026 for p in CORPUS.papers
    )
    assert len(titles) >= 5
    assert page.is_checked('.masrl-facet[data-k="f"] input[value="R7"]')
    assert page.is_checked('.masrl-facet[data-k="y"] input[value="2026"]')


def test_code_and_pdf_links_in_the_table(visit: Visit) -> None:
    page = visit.go("/papers/?q=c3")
    assert page.evaluate("window.masrlPapers.ready()") is True  # a search loads the details
    links = page.eval_on_selector_all(
        ".masrl-table tbody tr td:last-child a", "as => as.map(a => [a.textContent, a.href])"
    )
    c3 = next(p for p in CORPUS.papers if p.key == "c3")
    assert ["PDF", f"https://arxiv.org/pdf/{c3.arxiv}"] in links


def test_a_pdf_link_opens_the_entry_page_until_the_details_bring_its_arxiv_id(visit: Visit) -> None:
    # Arrange: the first page of the table, as it loads, before any search
    page = visit.go("/papers/")
    arxiv = {p.key: p.arxiv for p in CORPUS.papers if p.arxiv}
    pdfs = ".masrl-table tbody tr td:last-child a:first-child"
    # Assert: each PDF link first leads to the entry's own page, which shows the arXiv id
    before = page.eval_on_selector_all(pdfs, "as => as.map(a => [a.textContent, a.getAttribute('href')])")
    before = [href for text, href in before if text == "PDF"]
    assert before
    assert all(href.removesuffix("/") in arxiv for href in before)
    # Act: the details arrive
    assert page.evaluate("window.masrlPapers.ready()") is True
    # Assert: the same links now open the arXiv PDF
    after = page.eval_on_selector_all(
        pdfs, "as => as.filter(a => a.textContent === 'PDF').map(a => a.getAttribute('href'))"
    )
    assert after == [f"https://arxiv.org/pdf/{arxiv[href.removesuffix('/')]}" for href in before]


def _download(page: Any, kind: str) -> str:
    with page.expect_download() as info:
        page.click(f'button[data-export="{kind}"]')
    return Path(info.value.path()).read_text("utf-8")


def test_export_bibtex_is_exactly_the_view_in_the_order_shown(visit: Visit, repo_site: Path) -> None:
    from masrl.corpus._export import bib_blocks

    page = visit.go("/papers/?u=orchestrator,agent&sort=t&dir=desc")
    titles = [r[0] for r in rows(page)]
    text = _download(page, "bib")
    blocks = bib_blocks(text)
    by_title = {p.title: p.key for p in CORPUS.papers}
    # the export is the whole view; the page shows its first rows, in the same order
    in_view = [p for p in CORPUS.papers if p.credit_unit in ("orchestrator", "agent")]
    assert len(blocks) == len(in_view)
    assert len(titles) == min(len(in_view), PAPERS_PER_PAGE)
    assert list(blocks)[: len(titles)] == [by_title[t] for t in titles]
    # every entry is the one the site's papers.bib carries, byte for byte
    published = bib_blocks((repo_site / "data" / "papers.bib").read_text("utf-8"))
    for key, block in blocks.items():
        assert block == published[key], key


def test_export_bibtex_of_every_entry_parses_to_unicode_names(visit: Visit) -> None:
    import bibtexparser
    from bibtexparser import middlewares as m

    from masrl.corpus._bibtex import decode_latex

    page = visit.go("/papers/")
    library = bibtexparser.parse_string(
        _download(page, "bib"),
        append_middleware=[m.SeparateCoAuthors(), m.SplitNameParts(), m.MergeNameParts(style="last")],
    )
    assert library.failed_blocks == []
    names = {e.key: [decode_latex(a) for a in e["author"] if a != "others"] for e in library.entries}
    assert names["agentdojo2024"][2] == "Balunović, Mislav"
    assert names == {p.key: list(p.authors) for p in CORPUS.papers}


def test_export_csv_is_exactly_the_view_in_the_order_shown(visit: Visit) -> None:
    import csv
    import io

    page = visit.go("/papers/?y=2025&sort=ve&dir=asc")
    shown = [r[0] for r in rows(page)]
    table = list(csv.DictReader(io.StringIO(_download(page, "csv"))))
    # the export is the whole filtered view in its order; the page shows its first rows
    assert [row["title"] for row in table][: len(shown)] == shown
    assert len(table) == sum(p.year == 2025 for p in CORPUS.papers)
    first = next(p for p in CORPUS.papers if p.title == shown[0])
    assert table[0]["key"] == first.key
    assert table[0]["authors"].split("; ")[0] == first.authors[0]
    assert table[0]["credit_unit"] == first.credit_unit
    assert visit.outside() == []


def test_export_csv_of_the_whole_table_holds_every_field_of_every_entry(visit: Visit) -> None:
    """Every cell comes back, including values the page data gives once as a default."""
    import csv
    import io

    from masrl.publish._site import _cell_value, table_fields

    tax = CORPUS.taxonomy
    family = {p.key: tax.family_of(p.reward_type) for p in CORPUS.papers}
    table = list(csv.DictReader(io.StringIO(_download(visit.go("/papers/"), "csv"))))
    assert len(table) == len(CORPUS.papers) > PAPERS_PER_PAGE  # the export is the view, not the page
    by_key = {p.key: p for p in CORPUS.papers}
    for row in table:
        p = by_key[row["key"]]
        expected = {
            "title": p.title,
            "authors": "; ".join(p.authors) + ("; et al." if p.et_al else ""),
            "year": str(p.year),
            "venue": p.venue,
            "strict_credit": "yes" if p.strict_credit else "no",
            "added": p.added,
            "arxiv": p.arxiv or "",
            "doi": p.doi or "",
            "code": p.code or "",
            "pdf": f"https://arxiv.org/pdf/{p.arxiv}" if p.arxiv else "",
        }
        for name in table_fields(tax):
            value = _cell_value(p, name, family, tax)
            expected[name] = value if isinstance(value, str) else ";".join(value)
        assert {k: row[k] for k in expected} == expected, p.key


def test_the_search_box_shows_a_visible_focus_ring(visit: Visit) -> None:
    page = visit.go("/papers/")
    page.focus('input[name="q"]')
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")  # keyboard focus, so :focus-visible applies
    ring = page.eval_on_selector(
        'input[name="q"]',
        "e => { const s = getComputedStyle(e); return [s.outlineStyle, parseFloat(s.outlineWidth)]; }",
    )
    assert ring[0] != "none"
    assert ring[1] >= 2


def test_without_javascript_a_notice_explains_and_links_the_plain_list(browser: Any, repo_site: Path) -> None:
    context = browser.new_context(java_script_enabled=False)
    with serve(repo_site) as base:
        page = context.new_page()
        page.goto(base + "/papers/")
        assert "JavaScript is off" in page.text_content("noscript")
        assert page.locator(".masrl-noscript").is_visible()
        assert page.locator(".masrl-filterbox").is_hidden()  # no dead controls
        page.click(".masrl-noscript a >> text=All papers, by year")
        assert page.url == base + "/all-papers/"
        items = page.locator("article li a[href*='papers/']")
        assert items.count() == len(CORPUS.papers)  # every entry, not a first page of them
        hrefs = set(items.evaluate_all("els => els.map(e => e.getAttribute('href'))"))
        assert hrefs == {f"../papers/{p.key}/" for p in CORPUS.papers}
        years = page.locator("article h2").all_text_contents()
        assert [int(y.split()[0]) for y in years] == sorted({p.year for p in CORPUS.papers}, reverse=True)
    context.close()


def test_phone_layout_pins_titles_and_folds_the_filters(browser: Any, repo_site: Path) -> None:
    with serve(repo_site) as base:
        v = Visit(browser, base, width=390)
        page = v.go("/papers/")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert page.get_attribute(".masrl-filterbox", "open") is None  # folded: the rows come first
        box = page.locator(".masrl-scroll")
        left = page.eval_on_selector(".masrl-scroll", "e => e.getBoundingClientRect().left")
        box.evaluate("e => { e.scrollLeft = 400; }")
        title = page.eval_on_selector(".masrl-table tbody td", "e => e.getBoundingClientRect().left")
        assert abs(title - left) < 1  # the title column stays put while the table scrolls
        assert v.errors == []
        v.close()


def test_a_paper_page_shows_its_bibtex_with_a_copy_button(visit: Visit) -> None:
    page = visit.go("/papers/c3/")
    code = page.text_content("pre code")
    assert code.startswith("@article{c3,")
    assert "eprint = {2603.06859}" in code
    assert page.locator('pre button[data-md-type="copy"]').count() == 1
    edit = page.get_attribute('a[rel="edit"]', "href")
    assert edit.endswith("/edit/main/papers/c3.yaml")


@pytest.mark.parametrize("width", [390, 1366])
def test_the_404_page_works_under_a_sub_path(
    browser: Any, repo_site: Path, tmp_path_factory: pytest.TempPathFactory, width: int
) -> None:
    scratch = tmp_path_factory.mktemp("pages")
    prefix = urlsplit(SITE_URL).path  # where the site is published, e.g. /masrl/
    with serve_like_pages(repo_site, prefix, scratch) as base:
        v = Visit(browser, base.rsplit(prefix.rstrip("/"), 1)[0], width=width)
        failed: list[str] = []
        v.page.on(
            "response",
            lambda r: failed.append(r.url) if r.status >= 400 and r.request.resource_type != "document" else None,
        )
        response = v.page.goto(base + "/no/such/page/")
        v.page.wait_for_load_state("networkidle")
        assert response.status == 404
        assert v.page.locator("h1").first.text_content().strip() == "404 - Not found"
        assert failed == [], "the 404 page's own assets must load from a nested missing path"
        # the theme's stylesheet applied: the header is the primary colour, not unstyled
        assert v.page.eval_on_selector(".md-header", "e => getComputedStyle(e).position") in ("sticky", "fixed")
        home = v.page.get_attribute(".md-header__button.md-logo", "href")
        assert urlsplit(v.page.url).path.startswith(prefix)
        v.page.goto(urljoin(v.page.url, home))  # the home link leads home, under the sub-path
        v.page.wait_for_load_state("networkidle")
        assert urlsplit(v.page.url).path == prefix, home
        assert v.page.title() == "masrl — RL for LLM multi-agent systems"
        assert [e for e in v.errors if "404" not in e] == []
        v.close()


def test_search_and_theme_toggle_work_offline(visit: Visit) -> None:
    page = visit.go("/")
    page.click('label[for="__palette_1"]')
    assert page.get_attribute("body", "data-md-color-scheme") == "slate"
    page.click("input.md-search__input")
    page.keyboard.type("counterfactual")
    page.wait_for_selector(".md-search-result__item")
    assert page.locator(".md-search-result__item").count() > 0


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import shutil

    root = tmp_path_factory.mktemp("hostile")
    shutil.copytree(REPO / "tests" / "fixtures" / "small", root / "corpus")
    corpus = root / "corpus"
    shutil.copy(REPO / "taxonomy.yaml", corpus / "taxonomy.yaml")
    shutil.copy(REPO / "venues.yaml", corpus / "venues.yaml")
    copy_site_frame(corpus)
    built = subprocess.run(
        [sys.executable, "-m", "masrl", "build"], cwd=corpus, capture_output=True, text=True, check=False
    )
    assert built.returncode == 0, built.stdout + built.stderr
    out = root / "out"
    result = mkdocs_build(corpus, out)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def test_a_script_in_a_title_shows_as_text_and_never_runs(browser: Any, hostile_site: Path) -> None:
    title = "Alpha | pipes, *stars*, `ticks` and <script>alert(1)</script> in a title"
    with serve(hostile_site) as base:
        v = Visit(browser, base)
        page = v.go("/papers/alpha/")
        assert heading(page) == title
        assert page.title().startswith(title)
        table = v.go("/papers/")
        assert title in [r[0] for r in rows(table)]
        tags = v.go("/tags/")
        assert title in tags.text_content("article")
        claims = v.go("/claims/")
        assert (
            claims.locator("script:not([src])").evaluate_all(
                "els => els.filter(e => e.textContent.includes('alert(1)')).length"
            )
            == 0
        )
        assert v.dialogs == []
        assert v.errors == []
        v.close()


def test_embedded_data_cannot_close_its_script_element(hostile_site: Path) -> None:
    html = (hostile_site / "papers" / "index.html").read_text("utf-8")
    data = html.split('<script type="application/json" id="masrl-paper-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data
    assert rows_of(json.loads(data)["cols"])[0]["t"].startswith("Alpha |")


# -- defects found by reading the site in Chromium; each test fails on the site before the fix


@pytest.mark.parametrize("key", ["paramanager", "agentdojo2024"])
def test_paper_page_items_stand_apart(visit: Visit, key: str) -> None:
    page = visit.go(f"/papers/{key}/")
    items = page.eval_on_selector_all("article ul:first-of-type > li", "lis => lis.map(li => li.textContent)")
    assert [i.split(":")[0] for i in items] == [
        "Authors",
        "Year",
        "First author's affiliation",
        "Links",
        "PDF",
        "Code",
        "Record",
    ]
    cite = page.locator("h2#cite")
    assert cite.evaluate("h => h.firstChild.textContent") == "Cite"
    if key == "agentdojo2024":  # has a second reading
        before = cite.evaluate("h => h.previousElementSibling.textContent")
        assert before.startswith("Verdict:")


@pytest.mark.parametrize("path", ["/statistics/", "/screening/", "/exclusion-log/1/"])
def test_no_table_is_cut_at_1366(browser: Any, repo_site: Path, path: str) -> None:
    with serve(repo_site) as base:
        v = Visit(browser, base, width=1366)
        page = v.go(path)
        cut = page.eval_on_selector_all(
            "article table",
            "ts => ts.map(t => { const w = t.closest('.masrl-region, .masrl-scroll');"
            " return [t.querySelector('th') ? t.querySelector('th').textContent : '', w.scrollWidth, w.clientWidth]; })"
            ".filter(x => x[1] > x[2] + 1)",
        )
        assert cut == []
        v.close()


# How far each heat map's contents reach past its box (px, either side), how far its box scrolls,
# and how far its table's right edge lies past the box's: Material's scroll box around a table
# reaches 16 px into the margins unless the site's stylesheet pulls it back.
HEAT_OVERFLOW_JS = """hs => hs.map(h => {
  const box = h.getBoundingClientRect();
  const reach = Array.from(h.querySelectorAll('*')).map(e => e.getBoundingClientRect()).filter(r => r.width > 0)
    .map(r => Math.max(box.left - r.left, r.right - box.right));
  return [Math.round(Math.max(0, ...reach)), h.scrollWidth - h.clientWidth,
          Math.round(h.querySelector('table').getBoundingClientRect().right - box.right) <= 0];
})"""


def test_heat_tables_stay_inside_their_box_at_1366(browser: Any, repo_site: Path) -> None:
    with serve(repo_site) as base:
        v = Visit(browser, base, width=1366)
        page = v.go("/statistics/")
        heat = page.eval_on_selector_all(".masrl-heat", HEAT_OVERFLOW_JS)
        assert heat == [[0, 0, True]] * len(CORPUS.taxonomy.crosstabs)
        v.close()


def test_heat_map_cells_are_checked_for_contrast(visit: Visit) -> None:
    page = visit.go("/statistics/")
    assert page.locator(".masrl-heat td.dark").count() > 0  # both text colours are in use
    assert page.locator(".masrl-heat td.zero").count() > 0


def test_the_statistics_page_lists_the_draws_of_the_second_reading(visit: Visit) -> None:
    # Arrange: the draws protocol.yaml lists, round by round
    from masrl.living._protocol import load_protocol

    protocol = load_protocol(REPO, CORPUS.taxonomy)
    draws = [(r, d) for r in protocol.rounds for d in r.audit_draws]
    assert draws
    # Act
    page = visit.go("/statistics/")
    section = page.locator("h3#how-the-audited-entries-were-drawn")
    table = section.locator("xpath=following::table[1]")
    rows = table.locator("tbody tr").evaluate_all(
        "rs => rs.map(r => Array.from(r.cells).map(c => c.textContent.trim()))"
    )
    links = table.locator("tbody tr").evaluate_all(
        "rs => rs.map(r => Array.from(r.cells[4].querySelectorAll('a')).map(a => [a.textContent, a.href]))"
    )
    # Assert: a row per draw with its round, seed, size and pool, each key a link to its paper
    drawn = sum(len(d.keys) for _, d in draws)
    intro = section.locator("xpath=following-sibling::p[1]").text_content()
    assert intro.startswith(f"{drawn} of the {len(CORPUS.audits)} re-coded entries were drawn at random")
    assert [row[:4] for row in rows] == [
        [f"{r.label} ({r.id})", str(d.seed), str(len(d.keys)), d.drawn_from] for r, d in draws
    ]
    assert links == [[[key, f"{visit.base}/papers/{key}/"] for key in d.keys] for _, d in draws]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_figures_are_drawn_for_the_reader_s_theme(browser: Any, repo_site: Path, scheme: str) -> None:
    with serve(repo_site) as base:
        page = browser.new_page(viewport={"width": 1366, "height": 900}, color_scheme=scheme)
        page.goto(base + "/statistics/")
        page.wait_for_load_state("networkidle")
        shown = page.eval_on_selector_all(
            "article img", "is => is.filter(i => i.getBoundingClientRect().width > 0).map(i => i.getAttribute('src'))"
        )
        # reward families, credit units, reward x credit, entries per year, and the search arms of
        # the one round that has them (field-search)
        assert len(shown) == 5
        for src in shown:
            svg = (repo_site / "statistics" / src.split("#")[0]).read_text("utf-8")
            if scheme == "dark":
                assert src.endswith("-dark.svg#only-dark")
                assert "#ffffff" not in svg  # no white panel behind the chart
                assert "fill: #e3e5ea" in svg  # light text
            else:
                assert src.endswith(".svg#only-light")
                assert "-dark" not in src
        page.close()


def test_site_url_gives_a_sitemap_and_canonical_links(repo_site: Path) -> None:
    sitemap = (repo_site / "sitemap.xml").read_text("utf-8")
    locations = re.findall(r"<loc>([^<]+)</loc>", sitemap)
    assert len(locations) > 100
    assert all(u.startswith(SITE_URL) for u in locations)
    for page in ("index.html", "papers/index.html", "papers/c3/index.html", "statistics/index.html"):
        html = (repo_site / page).read_text("utf-8")
        assert re.search(rf'<link rel="canonical" href="{re.escape(SITE_URL)}[^"]*">', html), page


def test_trace_schema_descriptions_read_as_prose(visit: Visit) -> None:
    page = visit.go("/traces/")
    text = page.eval_on_selector(
        "article", "a => Array.from(a.querySelectorAll('p, td')).map(e => e.textContent).join(' ')"
    )
    assert "`" not in text
    assert "do not edit" not in text.lower()
    assert page.locator("article table td code").count() > 10  # names still read as code


# What a reader reads as prose: script, style, pre and code blocks and every tag dropped.
_NOT_PROSE = re.compile(r"<(script|style|pre|code)\b[^>]*>.*?</\1\s*>", re.S | re.I)


def test_not_applicable_is_spelled_n_a_everywhere(repo_site: Path) -> None:
    found = {}
    for page in sorted(repo_site.rglob("*.html")):
        raw = page.read_text("utf-8")
        if not re.search(r"\bNA\b", raw):
            continue
        text = html.unescape(re.sub(r"<[^>]+>", " ", _NOT_PROSE.sub(" ", raw)))
        words = re.findall(r".{0,30}\bNA\b.{0,10}", text)
        if words:
            found[str(page.relative_to(repo_site))] = words
    assert found == {}


def test_home_title_is_the_site_name(visit: Visit) -> None:
    page = visit.go("/")
    assert page.title() == "masrl — RL for LLM multi-agent systems"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # a repository's owner/name, even a long one, keeps its slash whole
        ("chen742/Awesome_multi-agent-system, README.md", "chen742/Awesome\\_multi-agent-system, README.md"),
        (
            "owner/name, reading_room/artificial_intelligence/llm_readings/survey/2024-2025/ai_agent/index.md",
            "owner/name, reading\\_room/<wbr>artificial\\_intelligence/<wbr>llm\\_readings/<wbr>survey/<wbr>2024-2025/"
            "<wbr>ai\\_agent/<wbr>index.md",
        ),
        ("a <b>/c</b> " + "x/" * 31, "a &lt;b&gt;/c&lt;/b&gt; " + "x/<wbr>" * 31),  # escaped first, then broken
    ],
)
def test_a_long_path_in_a_table_cell_may_break_after_each_slash(text: str, shown: str) -> None:
    from masrl.publish._site import breakable

    assert breakable(text) == shown
