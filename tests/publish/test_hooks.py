"""The site's MkDocs hooks (site/hooks.py): tables wrapped in named, focusable scroll regions."""

from __future__ import annotations

import importlib.util
from types import ModuleType

import pytest

from conftest import REPO


def _load_hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("masrl_site_hooks", REPO / "site" / "hooks.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hooks = _load_hooks()


def region(name: str) -> str:
    return f'<div class="masrl-region" role="region" tabindex="0" aria-label="{name}">'


TABLE = "<table>\n<tr><td>1</td></tr>\n</table>"
PERMALINK = '<a class="headerlink" href="#{0}" title="Permanent link">&para;</a>'


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        # a Markdown table takes the name of the heading above it
        (f'<h2 id="counts">Counts</h2>\n{TABLE}', f'<h2 id="counts">Counts</h2>\n{region("Counts")}{TABLE}</div>'),
        # the nearest heading wins; each table is named by its own
        (
            f"<h2>A</h2><h3>B</h3>{TABLE}<h3>C</h3><p>x</p>{TABLE}",
            f"<h2>A</h2><h3>B</h3>{region('B')}{TABLE}</div><h3>C</h3><p>x</p>{region('C')}{TABLE}</div>",
        ),
        # two tables under one heading share its name
        (f"<h2>A</h2>{TABLE}{TABLE}", f"<h2>A</h2>{region('A')}{TABLE}</div>{region('A')}{TABLE}</div>"),
        # the permalink is left out of the name; markup and spaces inside the heading are flattened
        (
            f'<h3 id="a-b">reward <code>type</code> &times;\n  unit{PERMALINK.format("a-b")}</h3>{TABLE}',
            f'<h3 id="a-b">reward <code>type</code> &times;\n  unit{PERMALINK.format("a-b")}</h3>'
            f"{region('reward type × unit')}{TABLE}</div>",
        ),
        # quotes, ampersands and angle brackets are escaped in the attribute
        (
            f"<h2>&quot;Q&quot; &amp; &lt;A&gt;</h2>{TABLE}",
            f"<h2>&quot;Q&quot; &amp; &lt;A&gt;</h2>{region('&quot;Q&quot; &amp; &lt;A&gt;')}{TABLE}</div>",
        ),
        # no heading above: the page's title
        (TABLE, f"{region('Page title')}{TABLE}</div>"),
        # an empty heading keeps the name from before
        (
            f"<h2>A</h2><h3>{PERMALINK.format('x')}</h3>{TABLE}",
            f"<h2>A</h2><h3>{PERMALINK.format('x')}</h3>{region('A')}{TABLE}</div>",
        ),
        # a table with a class brings its own scroll box and is left alone, its close tag too
        (
            f'<h2>A</h2><div class="masrl-scroll"><table class="masrl-table"><tr><td>1</td></tr></table></div>{TABLE}',
            f'<h2>A</h2><div class="masrl-scroll"><table class="masrl-table"><tr><td>1</td></tr></table></div>'
            f"{region('A')}{TABLE}</div>",
        ),
        # a template's table inside its own box (a heat map)
        (
            f'<h3>H</h3>\n<div class="masrl-heat">\n{TABLE}\n</div>',
            f'<h3>H</h3>\n<div class="masrl-heat">\n{region("H")}{TABLE}</div>\n</div>',
        ),
        # table-like text in code is not a table; a <header> or <hr> is not a heading
        (
            "<h2>A</h2><header>B</header><hr><p><code>&lt;table&gt;</code></p>",
            "<h2>A</h2><header>B</header><hr><p><code>&lt;table&gt;</code></p>",
        ),
        # nothing to wrap
        ("<p>text</p>", "<p>text</p>"),
        ("", ""),
    ],
)
def test_each_plain_table_is_wrapped_in_a_region_named_after_its_heading(content: str, expected: str) -> None:
    assert hooks.wrap_tables(content, "Page title") == expected


def test_the_built_site_carries_its_scripts_without_comments_but_with_the_same_code(tmp_path) -> None:
    # Arrange: a built site's copy of the papers script, and one stylesheet that must stay as it is
    assets = tmp_path / "assets"
    assets.mkdir()
    source = (REPO / "site" / "docs" / "assets" / "papers.js").read_text("utf-8")
    (assets / "papers.js").write_text(source, "utf-8")
    (assets / "masrl.css").write_text("/* kept */\n", "utf-8")
    # Act
    done = hooks.minify_scripts(tmp_path)
    # Assert: only the script is rewritten, smaller, without its comments, and its strings survive
    built = (assets / "papers.js").read_text("utf-8")
    assert done == [assets / "papers.js"]
    assert len(built) < 0.75 * len(source)
    assert "Record strings reach the page through textContent" not in built
    assert '"https://arxiv.org/abs/"' in built
    assert "window.masrlPapers" in built
    assert (assets / "masrl.css").read_text("utf-8") == "/* kept */\n"


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("var a = 1; // one\n", "var a=1;"),
        ('var u = "http://x//y"; /* c */\n', 'var u="http://x//y";'),
        ("var r = /\\/\\//g;\n", "var r=/\\/\\//g;"),
    ],
)
def test_minifying_keeps_strings_and_regular_expressions(tmp_path, script: str, expected: str) -> None:
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "a.js").write_text(script, "utf-8")
    hooks.minify_scripts(tmp_path)
    assert (tmp_path / "assets" / "a.js").read_text("utf-8") == expected
