"""Accessibility of the published site, read in headless Chromium: axe-core's WCAG 2.0 and 2.1 A/AA
rules on every page kind, at phone and desktop widths (the colour, image and layout rules in both palettes),
plus the site's own checks.

axe-core comes inside the axe-playwright-python package and is injected into each page, so the
run stays offline like every other site test.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _site_support import Visit, serve_like_pages

# Every kind of page the site has, with one real page of each.
PAGE_KINDS = {
    "home": "/",
    "papers": "/papers/",
    "paper": "/papers/agentdojo2024/",
    "taxonomy": "/taxonomy/",
    "taxonomy-field": "/taxonomy/credit-unit/",
    "taxonomy-value": "/taxonomy/credit-unit/orchestrator/",
    # a credit unit's worked example at its widest: a credit table of six methods, many units
    "credit-example": "/taxonomy/credit-unit/turn/",
    "tags": "/tags/",
    "statistics": "/statistics/",
    "claims": "/claims/",
    "screening": "/screening/",
    "exclusion-log": "/exclusion-log/1/",
    "all-papers": "/all-papers/",
    "whats-new": "/whats-new/",
    "traces": "/traces/",
    "contributing": "/contributing/",
    "releases": "/releases/",
    "python-api": "/python-api/",
    "not-found": "/no/such/page/",
}
PUBLISHED_UNDER = "/masrl/"  # the path of site_url's default in site/mkdocs.yml
WIDTHS = (390, 1366)
# The site's two palettes, each reached the way a reader reaches it: by the colour-scheme
# preference of their system, which mkdocs.yml maps to a palette.
PALETTES = {"default": "light", "slate": "dark"}

# The rule sets of WCAG 2.0 A/AA and 2.1 A/AA. No rule is switched off; one that had to be would
# go under "rules" here, {"rule-id": {"enabled": False}}, with the reason written beside it.
AXE_OPTIONS: dict[str, Any] = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
    "resultTypes": ["violations"],
}
# A page's markup is the same at every width and in both palettes; its layout changes with the
# width and its colours and figures with the palette. So every rule runs once per page kind (in the
# default palette, at one width), and the page's other visit (the other palette, at the other width)
# runs the rules of those sets that read colour, images or layout (axe on the largest pages takes
# tens of seconds, most of it on rules that would see the same markup twice).
AXE_OTHER_OPTIONS: dict[str, Any] = {
    "runOnly": {
        "type": "rule",
        "values": [
            "color-contrast",
            "link-in-text-block",
            "image-alt",
            "svg-img-alt",
            "role-img-alt",
            "scrollable-region-focusable",
            "aria-hidden-focus",
        ],
    },
    "resultTypes": ["violations"],
}

# WCAG 2 contrast of every visible text element against what is actually behind it: the text
# colour and each ancestor's background are composited (alpha and opacity included). It checks
# what axe leaves as "needs review" (text over translucent layers) as well.
CONTRAST_JS = """() => {
  const rgba = c => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const over = (top, under) => [0, 1, 2].map(i => top[i] * top[3] + under[i] * (1 - top[3])).concat([1]);
  const lin = c => { c /= 255; return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
  const lum = c => 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own || el.closest('pre, script, style, noscript, .md-search, [hidden]')) continue;
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (box.width === 0 || box.height === 0 || style.visibility !== 'visible') continue;
    let opacity = 1; const layers = [];
    for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    if (opacity === 0) continue;  // not shown (a skip link, a permalink before hover)
    for (let e = el; e; e = e.parentElement) {
      const bg = rgba(getComputedStyle(e).backgroundColor);
      if (bg && bg[3] > 0) { layers.push(bg); if (bg[3] >= 1) break; }
    }
    let bg = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    const fg = rgba(style.color); fg[3] *= opacity;
    const text = over(fg, bg);
    const [a, b] = [lum(text), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    if (ratio < 4.5) out.push([el.tagName, el.className, el.textContent.trim().slice(0, 40), Math.round(ratio * 100) / 100]);
  }
  return out;
}"""


def axe_violations(page: Any, context: str | None = None, options: dict[str, Any] | None = None) -> list[str]:
    """Each axe violation on *page* (or inside the element *context* selects) as one line: the rule,
    then each failing element with axe's summary of what to fix."""
    from axe_playwright_python.sync_playwright import Axe

    response = Axe().run(page, context=context, options=options or AXE_OPTIONS).response
    return [
        f"{v['id']}: " + "; ".join(f"{' '.join(n['target'])} ({n.get('failureSummary', '')})" for n in v["nodes"])
        for v in response["violations"]
    ]


@pytest.fixture(scope="module")
def site_url(repo_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The site served as GitHub Pages serves it: under its sub-path, with 404.html for a missing page."""
    with serve_like_pages(repo_site, PUBLISHED_UNDER, tmp_path_factory.mktemp("pages")) as base:
        yield base


# Which (page kind, width, palette) to visit: every kind twice, in the default palette at one width,
# where every rule runs, and in the other palette at the other width, where the rules that read
# colour, images or layout run (AXE_OTHER_OPTIONS); the widths alternate down the list of kinds. So
# every pair of values (kind and width, kind and palette, width and palette) is seen, and every
# rule runs on every kind, in 38 visits instead of the full product's 76.
VISITS = [
    visit
    for i, kind in enumerate(PAGE_KINDS)
    for visit in ((kind, WIDTHS[i % 2], "default"), (kind, WIDTHS[(i + 1) % 2], "slate"))
]


def test_the_visits_cover_every_pair_of_kind_width_and_palette() -> None:
    pairs = {(a, b) for kind, width, palette in VISITS for a, b in ((kind, width), (kind, palette), (width, palette))}
    assert pairs == (
        {(k, w) for k in PAGE_KINDS for w in WIDTHS}
        | {(k, p) for k in PAGE_KINDS for p in PALETTES}
        | {(w, p) for w in WIDTHS for p in PALETTES}
    )
    # every rule once per kind: each kind has exactly one visit in the default palette
    assert sorted(kind for kind, _, palette in VISITS if palette == "default") == sorted(PAGE_KINDS)
    assert len(VISITS) == 2 * len(PAGE_KINDS)


@pytest.mark.browser
@pytest.mark.parametrize(("kind", "width", "palette"), VISITS, ids=[f"{k}-{w}-{p}" for k, w, p in VISITS])
def test_every_page_kind_is_accessible_at_each_width_in_each_palette(
    browser: Any, site_url: str, kind: str, width: int, palette: str
) -> None:
    v = Visit(browser, site_url, width=width, scheme=PALETTES[palette])
    page = v.go(PAGE_KINDS[kind])
    assert page.get_attribute("body", "data-md-color-scheme") == palette
    assert page.locator("h1").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "the page scrolls sideways"
    assert page.evaluate(CONTRAST_JS) == [], "text below 4.5:1"
    assert axe_violations(page, options=AXE_OPTIONS if palette == "default" else AXE_OTHER_OPTIONS) == []
    # the not-found page's own 404 status is the one error the console may show
    assert [e for e in v.errors if not (kind == "not-found" and "404" in e)] == [], "console errors"
    assert v.outside() == [], "requests to outside hosts"
    v.close()


def _search(page: Any) -> None:
    page.click("input.md-search__input")
    page.keyboard.type("credit")
    page.wait_for_selector(".md-search-result__item")


def _open_drawer(page: Any) -> None:
    page.click('label.md-header__button[for="__drawer"]')
    page.click('label.md-nav__link[for="__nav_3"]')  # into the Taxonomy section
    page.locator('nav[aria-labelledby="__nav_3_label"] > .md-nav__title').click(
        trial=True
    )  # waits until it stops sliding


def _open_filters(page: Any) -> None:
    page.click(".masrl-filterbox > summary")
    page.click('.masrl-facet[data-k="f"] > summary')


# What a reader opens on top of a page, each at the width where it matters, and the part of the
# page it adds (the rest of the page is checked with its page kind).
STATES = {
    "search results": ("/", 1366, _search, ".md-search"),
    "navigation drawer": ("/statistics/", 390, _open_drawer, ".md-sidebar--primary"),
    "paper filters": ("/papers/", 390, _open_filters, ".masrl-filterbox"),
    "unknown filter value": ("/papers/?u=bogus", 1366, lambda page: None, ".masrl-notice"),
}


@pytest.mark.browser
@pytest.mark.parametrize("palette", list(PALETTES))
@pytest.mark.parametrize("state", list(STATES))
def test_what_a_reader_opens_is_accessible_in_each_palette(
    browser: Any, site_url: str, state: str, palette: str
) -> None:
    path, width, open_it, part = STATES[state]
    v = Visit(browser, site_url, width=width, scheme=PALETTES[palette])
    page = v.go(path)
    open_it(page)
    assert page.locator(part).is_visible()
    assert page.evaluate(CONTRAST_JS) == [], "text below 4.5:1"
    assert axe_violations(page, context=part) == []
    assert v.errors == [], "console errors"
    v.close()


# Each fix undone in the page, one at a time: axe then finds the violation the fix removed, so the
# check above can fail, and each part of the fix is needed. Each case names the page, the width,
# the palette, the script that undoes the fix, the rule, and the part of the page axe reads (a
# colour check of a whole page is slow, and the rest of it is checked above).
STYLE = "document.head.insertAdjacentHTML('beforeend', '<style>{}</style>')"
UNDONE = {
    "tables' regions not focusable": (
        ("/statistics/", 390, "default"),
        "document.querySelectorAll('.masrl-region').forEach(r => r.removeAttribute('tabindex'))",
        ("scrollable-region-focusable", "article"),
    ),
    "Material's scroll box scrolls again": (
        ("/screening/", 390, "slate"),
        STYLE.format(".md-typeset .masrl-region > .md-typeset__scrollwrap { overflow-x: auto !important }"),
        ("scrollable-region-focusable", "article"),
    ),
    "links not underlined": (
        ("/", 1366, "default"),
        STYLE.format(".md-typeset a { text-decoration: none !important }"),
        ("link-in-text-block", "article"),
    ),
    "Material's comment grey in code": (
        ("/contributing/", 1366, "default"),
        "document.body.style.setProperty('--md-code-hl-comment-color', 'var(--md-default-fg-color--light)')",
        ("color-contrast", "pre"),
    ),
    "Material's link colour on the dark palette": (
        ("/claims/", 1366, "slate"),
        "document.body.style.setProperty('--md-typeset-a-color', '#5488e8')",
        ("color-contrast", "a > code"),
    ),
    "Material's copyright grey": (
        ("/taxonomy/", 390, "default"),
        "document.querySelector('.md-copyright').style.color = 'var(--md-footer-fg-color--lighter)'",
        ("color-contrast", ".md-copyright"),
    ),
}


@pytest.mark.browser
@pytest.mark.parametrize(("view", "undo", "found"), list(UNDONE.values()), ids=list(UNDONE))
def test_axe_finds_the_violation_each_fix_removes(
    browser: Any, site_url: str, view: tuple[str, int, str], undo: str, found: tuple[str, str]
) -> None:
    (path, width, palette), (rule, where) = view, found
    v = Visit(browser, site_url, width=width, scheme=PALETTES[palette])
    page = v.go(path)
    only = {"runOnly": {"type": "rule", "values": [rule]}, "resultTypes": ["violations"]}
    assert axe_violations(page, context=where, options=only) == []
    page.evaluate(undo)
    assert [line.split(":")[0] for line in axe_violations(page, context=where, options=only)] == [rule]
    v.close()


def _highlight_classes(site: Path) -> list[str]:
    """Every token class Material's stylesheet colours in highlighted code (``.highlight .c1``)."""
    (css,) = (site / "assets" / "stylesheets").glob("main.*.min.css")
    return sorted(set(re.findall(r"\.highlight \.([a-z0-9]+)\b", css.read_text("utf-8"))))


@pytest.mark.browser
@pytest.mark.parametrize("palette", list(PALETTES))
def test_every_code_colour_holds_4_5_to_1_on_the_code_background(
    browser: Any, site_url: str, repo_site: Path, palette: str
) -> None:
    """Pages show only some kinds of token today; a sample with every kind the theme colours, and
    code inside a link, is checked so that a new code block cannot bring a faint one."""
    classes = _highlight_classes(repo_site)
    assert {"c1", "na", "m", "nb", "s2", "k"} <= set(classes)
    spans = "\n".join(f'<span class="{c}">token {c}</span>' for c in classes)
    sample = (
        '<div id="masrl-sample"><div class="language-text highlight"><pre><span></span><code>'
        f'{spans}</code></pre></div><p>See <a href="#"><code>linked-code</code></a> here.</p></div>'
    )
    v = Visit(browser, site_url, width=1366, scheme=PALETTES[palette])
    page = v.go("/contributing/")
    page.eval_on_selector("article", "(a, html) => a.insertAdjacentHTML('beforeend', html)", sample)
    options = {"runOnly": {"type": "rule", "values": ["color-contrast"]}, "resultTypes": ["violations"]}
    assert page.locator("#masrl-sample span[class]").count() == len(classes)
    assert axe_violations(page, context="#masrl-sample", options=options) == []
    v.close()


@pytest.mark.browser
@pytest.mark.parametrize("width", WIDTHS)
def test_a_wide_table_is_a_named_region_the_keyboard_scrolls(browser: Any, site_url: str, width: int) -> None:
    v = Visit(browser, site_url, width=width)
    page = v.go("/statistics/")
    regions = page.locator("article .masrl-region")
    # each table's region is named after the heading above it
    names = regions.evaluate_all(
        "rs => rs.map(r => [r.getAttribute('role'), r.tabIndex, r.getAttribute('aria-label')])"
    )
    headings = page.eval_on_selector_all(
        "article .masrl-region",
        "rs => rs.map(r => { let e = r; while (!/^H[1-6]$/.test(e.tagName)) e = e.previousElementSibling || e.parentElement;"
        " return e.firstChild.textContent.trim(); })",
    )
    assert names == [["region", 0, h] for h in headings]
    assert len(names) == page.locator("article table:not([class])").count() > 4
    # the keyboard reaches the first heat map's region, shows it has focus, and scrolls it
    heat = page.locator(".masrl-heat .masrl-region").first
    heat.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    assert heat.evaluate("r => document.activeElement === r")
    ring = heat.evaluate("r => { const s = getComputedStyle(r); return [s.outlineStyle, parseFloat(s.outlineWidth)]; }")
    assert ring[0] != "none"
    assert ring[1] >= 2
    scrolls = heat.evaluate("r => r.scrollWidth > r.clientWidth")
    assert scrolls == (width == 390)
    page.keyboard.press("ArrowRight")
    if scrolls:  # the scroll may be smooth: wait for it to move
        page.wait_for_function("r => r.scrollLeft > 0", arg=heat.element_handle())
    else:
        assert heat.evaluate("r => r.scrollLeft") == 0
    v.close()
