"""What's new: dated additions and corrections, as a page, an Atom feed and in a real browser."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import feedparser
import pytest
from _site_support import copy_site_frame, mkdocs_build, serve

from conftest import FIXTURES, REPO
from masrl.corpus._load import load_corpus
from masrl.publish import _news as news_module
from masrl.publish._news import Item, Line, atom_feed, lines_by_day, news, pages_of, site_url

ADDITION = """\
origin: contributor
added: "2026-07-15"
"""
CORRECTION = """\
changes:
  - date: "2026-08-01"
    note: Venue updated to the published proceedings.
"""


@pytest.fixture(scope="module")
def grown(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small corpus where beta was added by a contributor and alpha was corrected later."""
    root = tmp_path_factory.mktemp("news") / "corpus"
    shutil.copytree(FIXTURES / "small", root)
    shutil.copy(REPO / "taxonomy.yaml", root / "taxonomy.yaml")
    shutil.copy(REPO / "venues.yaml", root / "venues.yaml")
    beta = root / "papers" / "beta.yaml"
    text = beta.read_text("utf-8").replace("origin: survey\n", "").replace('added: "2026-05-04"\n', "")
    beta.write_text(text + ADDITION, "utf-8")
    alpha = root / "papers" / "alpha.yaml"
    alpha.write_text(alpha.read_text("utf-8") + CORRECTION, "utf-8")
    return root


def test_items_are_dated_newest_first_and_the_snapshot_is_one_item(grown: Path) -> None:
    items = news(load_corpus(grown).corpus)
    assert [(i.date, i.action, i.kind, i.name) for i in items] == [
        ("2026-08-01", "changed", "paper", "alpha"),
        ("2026-07-15", "added", "paper", "beta"),
        ("2026-05-04", "snapshot", "snapshot", "survey"),
    ]
    assert items[2].note == "The survey's own tables: 3 retained entries and 2 screened-out records."


def test_feed_is_valid_atom(grown: Path) -> None:
    # Act
    text = atom_feed(news(load_corpus(grown).corpus), "https://example.org/masrl/", "masrl: what is new")
    parsed = feedparser.parse(text)
    # Assert: well formed, Atom 1.0, and every element RFC 4287 requires is there.
    assert parsed.bozo == 0, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    assert parsed.feed.id == "https://example.org/masrl/feed.xml"
    assert parsed.feed.author == "The masrl contributors"
    assert parsed.feed.updated == "2026-08-01T00:00:00Z"
    assert [link.rel for link in parsed.feed.links] == ["self", "alternate"]
    ids = [e.id for e in parsed.entries]
    assert len(ids) == len(set(ids)) == 3
    for entry in parsed.entries:
        assert entry.title
        assert entry.summary
        assert entry.link.startswith("https://example.org/masrl/")
        dt.datetime.strptime(entry.updated, "%Y-%m-%dT%H:%M:%SZ")
    assert (
        parsed.entries[0].title
        == "Paper corrected: Alpha | pipes, *stars*, `ticks` and <script>alert(1)</script> in a title"
    )
    assert parsed.entries[1].link == "https://example.org/masrl/papers/beta/"


@pytest.mark.parametrize(
    ("line", "env", "expected"),
    [
        ("site_url: https://example.org/x/", {}, "https://example.org/x/"),
        ('site_url: !ENV [MASRL_SITE_URL, "https://example.org/default/"]', {}, "https://example.org/default/"),
        (
            'site_url: !ENV [MASRL_SITE_URL, "https://example.org/default/"]',
            {"MASRL_SITE_URL": "https://mirror.example.net/"},
            "https://mirror.example.net/",
        ),
        ("site_name: no url here", {}, "https://masrl.github.io/masrl/"),
    ],
    ids=["plain", "env-default", "env-set", "missing"],
)
def test_site_url_comes_from_mkdocs_yml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str, env: dict[str, str], expected: str
) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "mkdocs.yml").write_text(f"site_name: x\n{line}\n", "utf-8")
    monkeypatch.delenv("MASRL_SITE_URL", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert site_url(tmp_path) == expected


@pytest.mark.browser
def test_whats_new_page_shows_the_new_entries_in_a_browser(browser: Any, grown: Path, tmp_path: Path) -> None:
    # Arrange: build the records and the site of the grown corpus.
    copy_site_frame(grown)
    built = subprocess.run(
        [sys.executable, "-m", "masrl", "build"], cwd=grown, capture_output=True, text=True, check=False
    )
    assert built.returncode == 0, built.stdout + built.stderr
    out = tmp_path / "out"
    result = mkdocs_build(grown, out)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (out / "feed.xml").is_file()
    with serve(out) as base:
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        # Act
        page.goto(base + "/whats-new/")
        days = page.locator("article h2").all_text_contents()
        items = page.locator("article li").all_text_contents()
        page.get_by_role("link", name="Beta debate with message credit").click()
        landed = page.url
        feed = page.request.get(base + "/feed.xml")
        feed_ok, feed_body = feed.ok, feed.body()
        page.close()
    # Assert
    assert [d.strip("¶ ") for d in days] == ["2026-08-01", "2026-07-15", "2026-05-04"]
    assert items[0].startswith("Paper corrected (survey): Alpha")
    assert items[1].startswith("Paper added (contributor): Beta")
    assert landed.endswith("/papers/beta/")
    assert feed_ok
    assert b"<feed" in feed_body
    assert errors == []


def _lines(day: str, n: int) -> tuple[str, list[Line]]:
    item = Item(day, "added", "paper", "p", "P", "", "discovery", "papers/p/")
    return day, [Line("item", (item,))] * n


@pytest.mark.parametrize(
    ("days", "per_page", "expected"),
    [
        ([], 3, [[]]),
        ([("d3", 2)], 3, [[("d3", 2)]]),
        ([("d3", 3)], 3, [[("d3", 3)]]),
        ([("d3", 2), ("d2", 2)], 3, [[("d3", 2), ("d2", 1)], [("d2", 1)]]),
        ([("d3", 7)], 3, [[("d3", 3)], [("d3", 3)], [("d3", 1)]]),
        ([("d3", 3), ("d2", 1)], 3, [[("d3", 3)], [("d2", 1)]]),
    ],
    ids=["empty", "one-short-day", "one-full-page", "day-goes-on", "long-day", "day-starts-a-page"],
)
def test_days_are_cut_into_pages_of_at_most_so_many_lines(
    days: list[tuple[str, int]], per_page: int, expected: list[list[tuple[str, int]]]
) -> None:
    pages = pages_of([_lines(d, n) for d, n in days], per_page)
    assert [[(d, len(lines)) for d, lines in page] for page in pages] == expected


def test_a_day_of_many_exclusions_is_summed_up_in_one_line_each_for_recorded_and_corrected() -> None:
    def item(name: str, kind: str, action: str) -> Item:
        return Item("2026-09-01", action, kind, name, name, "", "discovery", f"exclusion-log/1/#{name.lower()}")

    many = [item(f"E{i:03d}", "exclusion", "added") for i in range(25)] + [item("E900", "exclusion", "changed")]
    days = lines_by_day([item("alpha", "paper", "added"), *many])
    assert [(line.kind, len(line.items)) for line in days[0][1]] == [("item", 1), ("excluded", 25), ("corrected", 1)]
    few = lines_by_day([item("alpha", "paper", "added"), *many[:3]])
    assert [(line.kind, line.item.name) for line in few[0][1]] == [
        ("item", "alpha"),
        ("item", "E000"),
        ("item", "E001"),
        ("item", "E002"),
    ]


def test_older_entries_go_on_numbered_pages_that_link_each_other(grown: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Arrange: one line a page, so the grown corpus's three items make three pages.
    monkeypatch.setattr(news_module, "LINES_PER_PAGE", 1)
    monkeypatch.setattr(news_module, "pages_of", lambda days, per_page=1: pages_of(days, per_page))
    # Act
    out = news_module.render(load_corpus(grown).corpus, grown)
    # Assert: page 1 where it always was, the older ones under whats-new/, and nothing else.
    assert sorted(out) == [
        "site/docs/feed.xml",
        "site/docs/whats-new.md",
        "site/docs/whats-new/2.md",
        "site/docs/whats-new/3.md",
    ]
    first, second, third = (
        out[p] for p in ("site/docs/whats-new.md", "site/docs/whats-new/2.md", "site/docs/whats-new/3.md")
    )
    assert "# What's new\n" in first
    assert "Pages: **1** (2026-08-01) · [2](whats-new/2.md) (2026-07-15) · [3](whats-new/3.md) (2026-05-04)" in first
    assert "[Older entries](whats-new/2.md)" in first
    assert "# What's new: page 2 of 3\n" in second
    assert "Pages: [1](../whats-new.md) (2026-08-01) · **2** (2026-07-15) · [3](3.md) (2026-05-04)" in second
    assert "[Older entries](3.md)" in second
    assert "[Older entries]" not in third
    # every item once, its links one folder up on the older pages
    assert "(papers/alpha.md)" in first
    assert "(../papers/beta.md)" in second
    assert "See the [screening](../screening.md) page." in third
    assert sum(page.count("\n- **") for page in (first, second, third)) == 3
