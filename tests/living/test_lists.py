"""Curated lists (Markdown, BibTeX, CSV) read as papers, and `masrl coverage` against a corpus."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, REPO, fixture_corpus
from masrl.corpus._load import load_corpus
from masrl.living._lists import (
    Listed,
    ListError,
    clean_title,
    ids_in,
    key_names,
    match_list,
    read_list,
    short_names,
)

LISTS = FIXTURES / "lists"
CHEN = LISTS / "chen742-awesome-multi-agent-system.md"
XHYU = LISTS / "xhyumiracle-awesome-agenticllm-rl-papers-excerpt.md"
XMU = LISTS / "xmudeeplit-awesome-self-evolving-agents-excerpt.md"


# ---------------------------------------------------------------------------------------------
# identifiers and titles


@pytest.mark.parametrize(
    ("text", "arxiv", "dois"),
    [
        # arXiv links, with and without versions
        ("https://arxiv.org/abs/2503.03686", ["2503.03686"], []),
        ("https://arxiv.org/abs/2503.03686v3", ["2503.03686"], []),
        ("http://www.arxiv.org/pdf/2503.03686v1.pdf", ["2503.03686"], []),
        ("https://arxiv.org/pdf/2503.03686", ["2503.03686"], []),
        ("https://arxiv.org/html/2510.11062v2#S3", ["2510.11062"], []),
        ("https://export.arxiv.org/abs/2410.08115", ["2410.08115"], []),
        ("https://ARXIV.org/abs/0704.0001v2", ["0704.0001"], []),  # four digits after the dot, 2007-2014
        # mirrors and readers that carry the id
        ("https://huggingface.co/papers/2509.02547", ["2509.02547"], []),
        ("https://www.alphaxiv.org/abs/2507.08960", ["2507.08960"], []),
        # written out, and arXiv's own DOI
        ("arXiv:2506.02718v1", ["2506.02718"], []),
        ("arXiv preprint arXiv:2503.03686", ["2503.03686"], []),
        ("ArXiv 2410.08115", ["2410.08115"], []),
        ("https://doi.org/10.48550/arXiv.2503.03686", ["2503.03686"], []),
        ("10.48550/ARXIV.2503.03686", ["2503.03686"], []),
        # old style, with version and subject class (arXiv names it without the class)
        ("https://arxiv.org/abs/cs/0112017v1", ["cs/0112017"], []),
        ("arXiv:math.AG/0601001", ["math/0601001"], []),
        ("https://arxiv.org/abs/hep-th/9901001", ["hep-th/9901001"], []),
        # DOIs: bare, doi:, in links, with trailing punctuation, lower-cased
        ("10.1145/3605764.3623985", [], ["10.1145/3605764.3623985"]),
        ("doi:10.1287/moor.27.4.819.297.", [], ["10.1287/moor.27.4.819.297"]),
        ("(https://doi.org/10.1142/S0219525901000188)", [], ["10.1142/s0219525901000188"]),
        ("https://dl.acm.org/doi/10.5555/3666122.3668386", [], ["10.5555/3666122.3668386"]),
        ("https://dl.acm.org/doi/pdf/10.1145/3586183.3606763", [], ["10.1145/3586183.3606763"]),
        ("https://onlinelibrary.wiley.com/doi/full/10.1002/aaai.12345", [], ["10.1002/aaai.12345"]),
        # the ACL Anthology: a paper's page or PDF gives its DOI
        ("https://aclanthology.org/2025.acl-long.1459/", [], ["10.18653/v1/2025.acl-long.1459"]),
        ("https://aclanthology.org/anthology-files/pdf/findings/2023.findings-emnlp.462.pdf", [], ["10.18653/v1/2023.findings-emnlp.462"]),
        # one paper in two forms, and two papers
        ("https://arxiv.org/abs/2502.18439 https://arxiv.org/pdf/2502.18439v2", ["2502.18439"], []),
        ("[a](https://arxiv.org/abs/2502.18439) [b](https://arxiv.org/abs/2502.04780)", ["2502.18439", "2502.04780"], []),
        # bare, as a field of a line: after a dash, a bar, a bracket, a comma or at the start
        ("- [2026/05] AgentSlimming — Yulang Chen — 2605.08813 (prunes agents)", ["2605.08813"], []),
        ("| MAS-GPT | 2025 | 2503.03686 |", ["2503.03686"], []),
        ("Optima (2410.08115v3)", ["2410.08115"], []),
        ("2506.02718, 2510.11062", ["2506.02718", "2510.11062"], []),
        # not ids
        ("version 2503.03686 of the code", [], []),
        ("see 2503.03686.", [], []),  # after a word: prose, not a field
        ("| 2025.acl-long.179 |", [], []),  # an ACL Anthology id: no month 25
        ("| 0612.1234 |", [], []),  # before arXiv's new-style ids (2007)
        ("doi 10.1145/3744103.3744144", [], ["10.1145/3744103.3744144"]),
        ("https://arxiv.org/abs/2513.00001", [], []),  # no month 13
        ("https://arxiv.org/abs/XXXX.XXXX", [], []),
        ("https://github.com/org/repo/releases/tag/v2503.03686", [], []),
        ("10.1/too-short-a-prefix", [], []),
    ],
)  # fmt: skip
def test_every_form_of_an_id_is_read(text: str, arxiv: list[str], dois: list[str]) -> None:
    assert ids_in(text) == (arxiv, dois)


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("MetaGPT: Meta Programming for A Multi-Agent Collaborative Framework", "MetaGPT: Meta Programming for A Multi-Agent Collaborative Framework"),
        ("`[2023/03]` CAMEL: Communicative Agents :star:", "CAMEL: Communicative Agents"),
        ("(arxiv'25) Language self-play for data-free training", "Language self-play for data-free training"),
        ("(NeurIPS 2024) Optima: Optimizing Effectiveness and Efficiency - ", "Optima: Optimizing Effectiveness and Efficiency"),
        ("[ICLR'25] 🔥 How to Train a Leader?", "How to Train a Leader?"),
        ("MasRouter: Learning to Route LLMs, Yue et al.", "MasRouter: Learning to Route LLMs"),
        ("Paper", None),
        ("[Code]", None),
        ("2025", None),
        ("MAS", None),  # one word is no title ...
    ],
)  # fmt: skip
def test_titles_lose_their_tags(text: str, title: str | None) -> None:
    assert clean_title(text) == title


def test_a_table_cell_may_name_a_method_in_one_word() -> None:
    assert clean_title("MAS", min_words=1) == "MAS"


# ---------------------------------------------------------------------------------------------
# reading lists


def _rows(path: Path) -> list[tuple[int, str | None, str | None, str | None]]:
    return [(p.line, p.arxiv, p.doi, p.title) for p in read_list(path).papers]


def test_a_table_of_methods_with_paper_links() -> None:
    # Arrange, Act
    read = read_list(XHYU)
    # Assert: every row with a paper link is a paper, titled by its method's cell; section rows are not
    assert (read.format, read.problems) == ("markdown", [])
    assert _rows(XHYU) == [
        (4, "2509.02547", None, None),  # the survey's own link, whose text is only a URL
        (12, None, "10.5555/3666122.3668386", "CAMEL"),
        (13, None, None, "MetaGPT"),
        (14, None, "10.18653/v1/2024.emnlp-main.992", "MAD"),
        (15, None, None, "MoA"),
        (16, None, None, "AFlow"),
        (18, None, None, "MaAS"),
        (19, None, None, "G-Designer"),
        (20, None, None, "MALT"),
        (21, "2504.16129", None, "MARFT"),
        (22, None, "10.18653/v1/2025.acl-long.1459", "MAPoRL"),
        (23, "2507.08960", None, "MLPO"),
        (24, "2503.09501", None, "ReMA"),
        (25, "2504.15257", None, "FlowReasoner"),
        (26, "2503.21807", None, "LERO"),
        (27, "2506.03136", None, "CURE"),
        (28, "2506.00555", None, "MMedAgent-RL"),
    ]
    assert read.papers[2].url == "https://openreview.net/forum?id=VtmBAGCN7o"


def test_a_list_of_venue_tagged_titles_with_paper_links() -> None:
    papers = read_list(XMU).papers
    assert _rows(XMU) == [
        (3, "2312.06585", None, "Beyond human data: Scaling self-training for problem-solving with language models"),
        (4, "2502.14948", None, "Learning to solve and verify: A self-play framework for code and test generation"),
        (5, None, "10.18653/v1/2023.acl-long.754", "Self-instruct: Aligning language models with self-generated instructions"),
        (6, None, "10.18653/v1/2023.emnlp-main.67", "Large language models can self-improve"),
        (7, None, None, "Sirius: Self-improving multi-agent systems via bootstrapped reasoning"),
        (8, "2504.20073", None, "Ragen: Understanding self-evolution in llm agents via multi-turn reinforcement learning"),
        (13, "2601.22628", None, "TTCS: Test-Time Curriculum Synthesis for Self-Evolving"),
        (14, None, None, "Co-evolving llm coder and unit tester via reinforcement learning"),
        (15, "2510.14253", None, "Towards agentic self-learning llms in search environment"),
        (16, "2510.23595", None, "Multi-agent evolve: Llm self-improve through co-evolution"),
        (17, None, None, "Coevolving with the other you: Fine-tuning llm with sequential cooperative multi-agent reinforcement learning"),
        (18, "2508.05004", None, "R-zero: Self-evolving reasoning llm from zero data"),
        (19, "2506.24119", None, "SPIRAL: Self-Play on Zero-Sum Games Incentivizes Reasoning via Multi-Agent Multi-Turn Reinforcement Learning"),
        (20, None, None, "SeRL: Self-Play Reinforcement Learning for Large Language Models with Limited Data"),
    ]  # fmt: skip
    # a link written without its scheme is followed as https
    assert papers[7].url == "https://neurips.cc/virtual/2025/loc/san-diego/poster/115329"


def test_bold_titles_with_authors_badges_and_notes() -> None:
    rows = _rows(CHEN)
    assert len(rows) == 26  # 3 must-read papers and the 23 of the training section; no badge or code link
    assert rows[0] == (
        32,
        "2303.17760",
        None,
        'CAMEL: Communicative Agents for "Mind" Exploration of Large Language Model Society',
    )
    assert rows[3] == (
        47,
        "2601.22297",
        None,
        "Prepare Reasoning Language Models for Multi-Agent Debate with Self-Debate Reinforcement Learning",
    )
    assert rows[-1][:2] == (69, "2410.06101")
    assert all(title and "et al" not in title and "Paper" not in title for _, _, _, title in rows)


def test_bibtex_entries_by_eprint_journal_doi_and_title() -> None:
    read = read_list(LISTS / "synthetic.bib")
    assert read.format == "bibtex"
    assert [(p.line, p.arxiv, p.doi, p.title, p.url) for p in read.papers] == [
        (2, "2609.11111", None, "Learning to Delegate in Agent Teams", "https://arxiv.org/abs/2609.11111"),
        (10, "2503.03686", None, "MAS-GPT: Training LLMs to Build LLM-based Multi-Agent Systems", "https://arxiv.org/abs/2503.03686"),
        (16, None, "10.1234/teams.2026", "A Paper With Only a DOI", "https://doi.org/10.1234/teams.2026"),
        (23, "cs/0112017", None, "An Old-Style Identifier", "https://arxiv.org/abs/cs/0112017"),
        (30, "2510.11062", None, "Named Through the arXiv DOI", "https://arxiv.org/abs/2510.11062"),
        (36, None, None, "Gamma: Coordinating Agent Teams with Shared Rewards", None),
    ]  # fmt: skip
    assert [str(p) for p in read.problems] == [
        "tests/fixtures/lists/synthetic.bib:42:1: (record): this BibTeX entry cannot be read, so it was left out"
    ]


@pytest.mark.parametrize("name", ["synthetic.csv", "synthetic.tsv"])
def test_csv_and_tsv_tables_with_a_header(name: str) -> None:
    read = read_list(LISTS / name)
    assert read.format == "csv"
    expected = {
        "synthetic.csv": [
            (2, "2609.11111", None, "Learning to Delegate in Agent Teams"),
            (3, "2503.03686", None, "MAS-GPT: Training LLMs to Build LLM-based Multi-Agent Systems"),
            (4, None, "10.1234/teams.2026", "A Paper With Only a DOI"),
            (5, "math/0601001", None, "An Old-Style Identifier"),
            (6, "2510.11062", None, "Linked to the HTML page"),
            (7, None, None, 'GAMMA — coordinating agent-teams with "shared" rewards!'),
        ],
        "synthetic.tsv": [
            (2, "2609.11111", None, "Learning to Delegate in Agent Teams"),
            (3, None, None, "A title the corpus has never seen, with no link"),
        ],
    }
    assert _rows(LISTS / name) == expected[name]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a list item over several lines: the title, then its links
        ("* MetaGPT: Meta Programming\n[\\[paper\\]](https://arxiv.org/abs/2308.00352)\n[\\[code\\]](https://github.com/x/y)\n",
         [(1, "2308.00352", None, "MetaGPT: Meta Programming")]),
        # the paper's own link text is its title; escapes and emphasis are read as text
        ("- [2025/03] [MAS-GPT: Training *LLMs* to Build \\[MAS\\] Teams](https://arxiv.org/abs/2503.03686v2) - <b>ICML</b>\n",
         [(1, "2503.03686", None, "MAS-GPT: Training LLMs to Build [MAS] Teams")]),
        # one paragraph, one paper per line
        ("Optima: Optimizing Teams [pdf](https://arxiv.org/pdf/2410.08115)\nHow to Train a Leader [paper](https://arxiv.org/abs/2507.08960)\n",
         [(1, "2410.08115", None, "Optima: Optimizing Teams"), (2, "2507.08960", None, "How to Train a Leader")]),
        # two papers on one line: each titled by its link
        ("See [Optima: Optimizing Teams](https://arxiv.org/abs/2410.08115) and [How to Train a Leader](https://arxiv.org/abs/2507.08960).\n",
         [(1, "2410.08115", None, "Optima: Optimizing Teams"), (1, "2507.08960", None, "How to Train a Leader")]),
        # a preprint and its published DOI are one paper
        ("- **Stronger Multi-Agent Systems** [arXiv](https://arxiv.org/abs/2510.11062) [ACL](https://aclanthology.org/2025.acl-long.7/)\n",
         [(1, "2510.11062", "10.18653/v1/2025.acl-long.7", "Stronger Multi-Agent Systems")]),
        # no id, but a paper page: matched by its title
        ("- Learning to Coordinate Teams (ICLR 2025) [OpenReview](https://openreview.net/forum?id=abc)\n",
         [(1, None, None, "Learning to Coordinate Teams")]),
        # an HTML table row
        ('<table>\n<tr><td><a href="https://arxiv.org/abs/2506.02718">Heterogeneous Group-Based RL</a></td></tr>\n</table>\n',
         [(2, "2506.02718", None, "Heterogeneous Group-Based RL")]),
        # links that name no paper: a repository, a badge, a section
        ("[![Stars](https://img.shields.io/x)](https://github.com/a/b) [Code](https://github.com/a/b) [Top](#top)\n", []),
        # the same paper twice in a list counts once, at its first line
        ("- [A Team Paper](https://arxiv.org/abs/2503.03686)\n- [A Team Paper again](https://arxiv.org/pdf/2503.03686v2)\n",
         [(1, "2503.03686", None, "A Team Paper")]),
    ],
)  # fmt: skip
def test_markdown_blocks(tmp_path: Path, text: str, expected: list[tuple[Any, ...]]) -> None:
    path = tmp_path / "list.md"
    path.write_text(text, "utf-8")
    assert _rows(path) == expected


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.md", None, "missing.md: no such file"),
        ("latin1.md", "- Caf\xe9 [paper](https://arxiv.org/abs/2503.03686)\n".encode("latin-1"), "latin1.md:1: not UTF-8 text; save the list as UTF-8 (Markdown, BibTeX or CSV)"),
        ("binary.md", b"\x00\x01\x02", "binary.md: a binary file, not a Markdown, BibTeX or CSV list"),
        ("folder", "dir", "folder: a folder, not a list file"),
    ],
)  # fmt: skip
def test_a_list_that_cannot_be_read_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, content: bytes | str | None, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / name
    if content == "dir":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    with pytest.raises(ListError) as caught:
        read_list(Path(name))
    assert str(caught.value) == message


def test_a_file_without_a_known_suffix_is_sniffed(tmp_path: Path) -> None:
    bib = tmp_path / "refs.txt"
    bib.write_text("@misc{x, title = {Two Words Here}, eprint = {2503.03686}, archivePrefix = {arXiv}}\n", "utf-8")
    md = tmp_path / "README"
    md.write_text("- [Two Words Here](https://arxiv.org/abs/2503.03686)\n", "utf-8")
    assert (read_list(bib).format, read_list(md).format) == ("bibtex", "markdown")
    assert (
        read_list(bib).papers
        == read_list(md).papers
        == [Listed(1, "Two Words Here", "2503.03686", None, "https://arxiv.org/abs/2503.03686")]
    )


# ---------------------------------------------------------------------------------------------
# against a corpus


@pytest.fixture
def listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The small fixture corpus plus records that lists name: a paper with a versioned arXiv id,
    one known only by its DOI, one only by its title (written in another case), and an exclusion."""
    root = fixture_corpus("small", tmp_path, monkeypatch)
    paper = (root / "papers" / "beta.yaml").read_text("utf-8")
    for key, title, arxiv, doi in (
        (
            "rema2025",
            "ReMA: Learning to Meta-think for LLMs with Multi-Agent Reinforcement Learning",
            '"2503.09501v3"',
            None,
        ),
        ("maporl", "MAPoRL: Multi-Agent Post-Co-Training", None, "10.18653/v1/2025.acl-long.1459"),
        ("sirius2025", "SiriuS: Self-improving Multi-agent Systems via Bootstrapped Reasoning", None, None),
        ("gamma2023", "Gamma: coordinating agent teams with shared rewards", None, None),
    ):
        text = paper.replace("key: beta", f"key: {key}").replace(
            "title: Beta debate with message credit", f'title: "{title}"'
        )
        text = text.replace('arxiv: "2406.00002"', f"arxiv: {arxiv}" if arxiv else "")
        text = text.replace("url: https://arxiv.org/abs/2406.00002", f"url: https://example.org/{key}")
        if doi:
            text = text.replace(f"url: https://example.org/{key}", f"url: https://example.org/{key}\ndoi: {doi}")
        (root / "papers" / f"{key}.yaml").write_text(text, "utf-8")
    exclusion = (root / "exclusions" / "E001.yaml").read_text("utf-8")
    exclusion = exclusion.replace("2305.00009", "2510.23595").replace("id: E001", "id: E003")
    (root / "exclusions" / "E003.yaml").write_text(
        exclusion.replace("A prompted debate", "Multi-Agent Evolve"), "utf-8"
    )
    shutil.copytree(LISTS, root / "lists")
    loaded = load_corpus(root)
    assert loaded.ok, [str(p) for p in loaded.problems]
    return root


def test_each_paper_is_matched_by_id_in_any_form_or_by_its_title(listed: Path) -> None:
    corpus = load_corpus(listed).corpus
    xmu = {m.listed.line: (m.status, m.record) for m in match_list(read_list(XMU), corpus)}
    assert xmu[16] == ("excluded", "E003")  # arXiv id
    assert xmu[7] == ("retained", "sirius2025")  # title only, case and punctuation aside
    xhyu = {m.listed.line: (m.status, m.record) for m in match_list(read_list(XHYU), corpus)}
    assert xhyu[22] == ("retained", "maporl")  # ACL Anthology page -> DOI
    assert xhyu[24] == ("retained", "rema2025")  # the record's id has a version, the list's not
    bib = {m.listed.line: (m.status, m.record) for m in match_list(read_list(LISTS / "synthetic.bib"), corpus)}
    csv = {m.listed.line: (m.status, m.record) for m in match_list(read_list(LISTS / "synthetic.csv"), corpus)}
    assert bib[36] == csv[7] == ("retained", "gamma2023")  # markup, case, dashes, quotes and "!" aside


def test_coverage_prints_per_list_what_is_screened_and_what_is_not(listed: Path, run_cli: Any) -> None:
    # Act
    result = run_cli("coverage", "lists/xhyumiracle-awesome-agenticllm-rl-papers-excerpt.md", "lists/synthetic.csv")
    # Assert
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "lists/xhyumiracle-awesome-agenticllm-rl-papers-excerpt.md: 17 papers listed; 2 screened (12%): "
        "2 retained, 0 excluded; 15 not screened\n"
        "  line     4  arXiv 2509.02547                     (no title)\n"
        "  line    12  DOI 10.5555/3666122.3668386          CAMEL\n"
        "  line    13  (title only)                         MetaGPT\n"
        "  line    14  DOI 10.18653/v1/2024.emnlp-main.992  MAD\n"
        "  line    15  (title only)                         MoA\n"
        "  line    16  (title only)                         AFlow\n"
        "  line    18  (title only)                         MaAS\n"
        "  line    19  (title only)                         G-Designer\n"
        "  line    20  (title only)                         MALT\n"
        "  line    21  arXiv 2504.16129                     MARFT\n"
        "  line    23  arXiv 2507.08960                     MLPO\n"
        "  line    25  arXiv 2504.15257                     FlowReasoner\n"
        "  line    26  arXiv 2503.21807                     LERO\n"
        "  line    27  arXiv 2506.03136                     CURE\n"
        "  line    28  arXiv 2506.00555                     MMedAgent-RL\n"
        "lists/synthetic.csv: 6 papers listed; 1 screened (17%): 1 retained, 0 excluded; 5 not screened\n"
        "  line     2  arXiv 2609.11111        Learning to Delegate in Agent Teams\n"
        "  line     3  arXiv 2503.03686        MAS-GPT: Training LLMs to Build LLM-based Multi-Agent Systems\n"
        "  line     4  DOI 10.1234/teams.2026  A Paper With Only a DOI\n"
        "  line     5  arXiv math/0601001      An Old-Style Identifier\n"
        "  line     6  arXiv 2510.11062        Linked to the HTML page\n"
        "all 2 lists: 23 papers listed; 3 screened (13%)\n"
    )


def test_coverage_as_json_marks_queued_papers(listed: Path, run_cli: Any) -> None:
    # Arrange: one unscreened paper waits in the screening queue
    (listed / "screening").mkdir()
    (listed / "screening" / "2504.16129.yaml").write_text(
        'id: "2504.16129"\nstatus: pending\ntitle: MARFT\nurl: https://arxiv.org/abs/2504.16129\narxiv: "2504.16129"\n',
        "utf-8",
    )
    # Act
    result = run_cli("coverage", "--json", "lists/xhyumiracle-awesome-agenticllm-rl-papers-excerpt.md")
    text = run_cli("coverage", "lists/xhyumiracle-awesome-agenticllm-rl-papers-excerpt.md").stdout
    # Assert
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)["lists"][0]
    assert {k: v for k, v in data.items() if k != "papers"} == {
        "file": "lists/xhyumiracle-awesome-agenticllm-rl-papers-excerpt.md",
        "format": "markdown",
        "listed": 17,
        "screened": 2,
        "retained": 2,
        "excluded": 0,
        "queued": 1,
        "unscreened": 15,
        "warnings": [],
    }
    assert data["papers"][9] == {
        "line": 21,
        "title": "MARFT",
        "arxiv": "2504.16129",
        "doi": None,
        "url": "https://arxiv.org/abs/2504.16129",
        "status": "queued",
        "record": None,
        "queued": "2504.16129",
    }
    assert data["papers"][10]["status"] == "retained"
    assert "15 not screened (1 waiting in screening/)" in text
    assert f"  line    21  {'arXiv 2504.16129':<35}  MARFT  [screening/2504.16129.yaml]\n" in text


def test_coverage_of_the_real_corpus_against_the_real_lists(run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # The corpus grows, so only what it already holds is asserted: every count adds up, and papers
    # of the survey's snapshot named by arXiv id, by an ACL Anthology link or only by a title match.
    monkeypatch.chdir(REPO)
    result = run_cli("coverage", "--json", str(CHEN), str(XHYU), str(XMU))
    assert result.exit_code == 0, result.output
    lists = json.loads(result.stdout)["lists"]
    for data in lists:
        statuses = [p["status"] for p in data["papers"]]
        assert data["listed"] == len(statuses) == data["screened"] + data["unscreened"]
        assert data["screened"] == statuses.count("retained") + statuses.count("excluded")
    records = {(Path(d["file"]).name, p["line"]): p["record"] for d in lists for p in d["papers"]}
    assert records[(CHEN.name, 56)] == "magrpo"
    assert records[(CHEN.name, 58)] == "spiral2026"
    assert records[(XHYU.name, 22)] == "maporl"
    assert records[(XMU.name, 7)] == "sirius2025"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "Error: Missing argument 'FILES...'."),
        (("nowhere.md",), "Error: nowhere.md: no such file"),
    ],
)
def test_coverage_refuses_what_it_cannot_read(listed: Path, run_cli: Any, args: tuple[str, ...], message: str) -> None:
    result = run_cli("coverage", *args)
    assert result.exit_code != 0
    assert message in result.stderr


def test_coverage_warns_of_entries_it_could_not_read(listed: Path, run_cli: Any) -> None:
    result = run_cli("coverage", "lists/synthetic.bib")
    assert result.exit_code == 0
    assert result.stderr == "lists/synthetic.bib:42: warning: this BibTeX entry cannot be read, so it was left out\n"


@pytest.mark.parametrize(
    ("titled", "expected"),
    [
        # a method's name before the colon stands for its record
        ([("G-Designer: Architecting Topologies", "g-designer2024")], {"gdesigner": "g-designer2024"}),
        # two records sharing a name: the name alone decides nothing
        ([("SPIRAL: Self-Play on Zero-Sum Games", "spiral2026"), ("SPIRAL: Learning to Search", "s")], {}),
        # no colon, or a head too long to be a name
        ([("Proximal Policy Optimization Algorithms", "ppo2017")], {}),
        ([("A very long heading that is surely no method name at all: x", "k")], {}),
    ],
)
def test_a_method_named_alone_matches_the_record_it_heads(
    titled: list[tuple[str, str]], expected: dict[str, str]
) -> None:
    assert short_names(titled) == expected


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        # a key is a method's name and a year: a list's "MaAS" is maas2025
        (["maas2025"], {"maas": "maas2025"}),
        (["malt"], {"malt": "malt"}),
        (["g-designer2024"], {"gdesigner": "g-designer2024"}),
        # a name two keys share decides nothing
        (["spiral2025", "spiral2026"], {}),
        # a name this short is a common word ("MAD", "MoA"), not one paper
        (["mad2024", "moa"], {}),
    ],
)
def test_a_method_named_alone_matches_the_record_its_key_names(keys: list[str], expected: dict[str, str]) -> None:
    assert key_names(keys) == expected


def test_a_real_list_naming_a_method_alone_finds_its_record() -> None:
    # xhyumiracle's list names MaAS by its method name, linking OpenReview only; the corpus keeps
    # it as maas2025, titled "Multi-agent Architecture Search via Agentic Supernet"
    read = read_list(FIXTURES / "lists" / "xhyumiracle-awesome-agenticllm-rl-papers-excerpt.md")
    matched = {m.listed.title: m.record for m in match_list(read, load_corpus(REPO).corpus)}
    assert matched["MaAS"] == "maas2025"
