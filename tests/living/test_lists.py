"""Curated lists (Markdown, BibTeX, CSV) read as papers, and `masrl coverage` against a corpus."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, REPO, fixture_corpus, real_corpus
from masrl.corpus._load import load_corpus
from masrl.living._lists import (
    Listed,
    ListError,
    clean_title,
    disagreements,
    head_agrees,
    ids_in,
    is_label,
    is_paper_label,
    key_names,
    match_list,
    read_list,
    same_title,
    short_names,
)

LISTS = FIXTURES / "lists"
CHEN = LISTS / "chen742-awesome-multi-agent-system.md"
XHYU = LISTS / "xhyumiracle-awesome-agenticllm-rl-papers-excerpt.md"
XMU = LISTS / "xmudeeplit-awesome-self-evolving-agents-excerpt.md"
KYEGOMEZ = LISTS / "kyegomez-awesome-multi-agent-papers-excerpt.md"
BLOO = LISTS / "bloo-mind-awesome-multi-agent-systems-excerpt.md"
THINKWEE = LISTS / "thinkwee-agentsmeetrl-excerpt.md"
YHYAO = LISTS / "yh-yao-awesome-rl-ai-agents-excerpt.md"
YSTVT = LISTS / "ystvt-awesome-agent-rl-papers-excerpt.md"


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
        # a title in brackets, with the empty or unclosed brackets its links leave behind
        ("[ K-Level Reasoning with Large Language Models ] [  ]", "K-Level Reasoning with Large Language Models"),
        ("[ More agents is all you need ] [  ]", "More agents is all you need"),
        ("[ AgentScope: A Flexible yet Robust Multi-Agent Platform ] [  ] ]", "AgentScope: A Flexible yet Robust Multi-Agent Platform"),
        ("[ Constitutional AI: Harmlessness from AI Feedback ] [ [ ]", "Constitutional AI: Harmlessness from AI Feedback"),
        ("[CL] From LLMs to Agents: A Survey][https://arxiv.org/abs/2408.02479]", "From LLMs to Agents: A Survey"),
        ("Build [MAS] Teams (Training) Fast", "Build [MAS] Teams (Training) Fast"),  # balanced brackets stay
        # link labels of two words or more are no titles either
        ("PDF LINK", None),
        ("ACM DOI", None),
        ("PDF (Southampton ePrints)", None),
        ("EMNLP 2024 Findings", None),
    ],
)  # fmt: skip
def test_titles_lose_their_tags(text: str, title: str | None) -> None:
    assert clean_title(text) == title


@pytest.mark.parametrize(
    ("text", "label", "paper"),
    [
        # one word, as before
        ("Paper", True, True),
        ("[Code]", True, False),
        ("💻 GitHub", True, False),
        ("2025", True, False),
        ("", True, False),
        # a kind of link with a publisher, a host, a year or a note in parentheses
        ("PDF LINK", True, True),
        (" PDF LINK ", True, True),
        ("PDF Link", True, True),
        ("ACM DOI", True, True),
        ("INFORMS DOI", True, True),
        ("JMLR PDF", True, True),
        ("AAAI PDF", True, True),
        ("arXiv PDF", True, True),
        ("PDF (Southampton ePrints)", True, True),
        ("GitHub (archived)", True, False),
        ("GitHub repo", True, False),
        ("Blog (v0.1)", True, False),
        ("Book site (free PDF)", True, False),  # the note does not make a book site a paper
        ("EMNLP 2024 Findings", True, False),
        ("Springer", True, False),  # a publisher alone: a book's page as often as a paper's
        # titles
        ("Agent Workflow Memory", False, False),
        ("ToRL: Scaling Tool-Integrated RL", False, False),
        ("Paper Name", False, False),
        ("Open an issue", False, False),
    ],
)
def test_link_labels_name_the_kind_of_link(text: str, label: bool, paper: bool) -> None:
    assert (is_label(text), is_paper_label(text)) == (label, paper)


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


def test_titles_in_brackets_with_two_word_labels_and_citations_in_bibtex() -> None:
    # kyegomez writes "- [ Title ] [ [PDF LINK](url) ]" (its "Format" list names no paper), and
    # cites RouteLLM only in a ```bibtex block at its end
    read = read_list(KYEGOMEZ)
    assert read.problems == []
    assert _rows(KYEGOMEZ) == [
        (7, "2402.01521", None, "K-Level Reasoning with Large Language Models"),
        (9, "2402.05120", None, "More agents is all you need"),
        (11, "2402.11550", None, "LongAgent: Scaling Language Models to 128k Context through Multi-Agent Collaboration"),
        (13, "2402.09171", None, "Automated Unit Test Improvement using Large Language Models"),
        (15, None, "10.1126/science.ade9097", "Human-level play in the game of Diplomacy by combining language models with strategic reasoning"),
        (17, "2402.14034", None, "AgentScope: A Flexible yet Robust Multi-Agent Platform"),
        (21, "2405.11804", None, "Beyond Human Translation: Harnessing Multi-Agent Collaboration for Translating Ultra-Long Literary Texts"),
        (23, None, None, "RouteLLM: An Open-Source Framework for Cost-Effective LLM Routing"),  # a blog post, in a list of papers
        (25, "2407.04622", None, "On scalable oversight with weak LLMs judging strong LLMs"),
        (29, "2408.02479", None, "From LLMs to LLM-based Agents for Software Engineering: A Survey of Current, Challenges and Future"),
        (35, "2406.18665", None, "RouteLLM: Learning to Route LLMs with Preference Data"),
        (47, "2403.04132", None, "Chatbot Arena: An Open Platform for Evaluating LLMs by Human Preference"),
    ]  # fmt: skip
    assert read.papers[7].url == "https://lmsys.org/blog/2024-07-01-routellm/"


def test_a_table_whose_links_are_labelled_by_publisher() -> None:
    # bloo-mind's rows link "ACM DOI", "AAAI PDF", "PDF (Southampton ePrints)"; the title is the
    # first column. Its books table, with two DOIs among seven books, lists no book by title.
    assert _rows(BLOO) == [
        (5, None, "10.1007/978-3-032-01082-7", "Agents and Multi-Agent Systems Development: Platforms, Toolkits, Technologies"),
        (6, None, "10.1007/978-3-031-90026-6", "Agentic AI: Theories and Practices"),
        (19, None, None, "Decentralised Coordination of Continuously Valued Control Parameters using the Max-Sum Algorithm"),
        (20, None, None, "ADOPT: Asynchronous Distributed Constraint Optimization with Quality Guarantees"),
        (21, None, "10.1287/moor.27.4.819.297", "The Complexity of Decentralized Control of Markov Decision Processes"),
        (22, None, "10.1145/367211.367250", "An agent-based approach for building complex software systems"),
        (23, None, None, "BDI Agents: From Theory to Practice"),
        (24, None, None, "Agent-oriented programming"),
        (25, None, "10.1109/tc.1980.1675516", "The Contract Net Protocol: High-Level Communication and Control in a Distributed Problem Solver"),
    ]  # fmt: skip
    urls = {p.line: p.url for p in read_list(BLOO).papers}
    assert urls[19] == "https://eprints.soton.ac.uk/267314/1/main-maxsumcont.pdf"
    assert urls[23] == "https://cdn.aaai.org/ICMAS/1995/ICMAS95-042.pdf"


def test_headings_title_the_entries_under_them() -> None:
    # thinkwee gives each method a heading over its links; MAPoRL's names its repository only
    read = read_list(THINKWEE)
    assert _rows(THINKWEE) == [
        (9, "2605.22177", None, "Maestro"),
        (16, "2602.08847", None, "DrMAS"),
        (23, None, None, "MAPoRL"),
        (32, "2508.04652", None, "CoMLRL"),
    ]
    assert read.papers[2].url == "https://github.com/chanwoo-park-official/MAPoRL"


def test_a_table_of_frameworks_and_algorithm_families() -> None:
    # yh-yao's frameworks table links half its rows to papers; the rest to code, a blog or nothing.
    # Its algorithm table names families in bold rows of their own.
    read = read_list(YHYAO)
    assert (read.problems, len(read.papers)) == ([], 34)
    title_only = [(p.line, p.title, p.url) for p in read.papers if not (p.arxiv or p.doi)]
    assert title_only == [
        (6, "SkyRL-v0: Train Real-World Long-Horizon Agents via RL", "https://novasky-ai.notion.site/skyrl-v0"),
        (7, "OpenManus-RL: Live-Streamed RL Tuning Framework for LLM Agents", "https://github.com/OpenManus/OpenManus-RL"),
        (11, "verl-agent: Extension of veRL for LLM Agents", "https://github.com/langfengQ/verl-agent"),
        (12, "ART: Agent Reinforcement Trainer", "https://github.com/OpenPipe/ART"),
        (14, "Agent-R1: End-to-End RL for Tool-using Agents", None),
        (16, "slime: Self-Improving LLM Agents", "https://lmsys.org/blog/2025-07-09-slime/"),
        (18, "MARTI: Multi-Agent RL with Tool Integration", "https://github.com/TsinghuaC3I/MARTI"),
        (19, "RL2: Reinforcement Learning Reloaded", "https://github.com/ChenmienTan/RL2"),
        (20, "verifiers: Benchmarking LLM Verification", "https://github.com/willccbb/verifiers"),
        (24, "TRL: Transformer Reinforcement Learning", "https://github.com/huggingface/trl"),
        (39, "PSGPO", "https://openreview.net/forum?id=Cn5Z0MUPZT"),
        (41, "DPO", "https://proceedings.neurips.cc/paper_files/paper/2023/file/a85b405ed65c6477a4fe8302b5e06ce7-Paper-Conference.pdf"),
        (42, "β-DPO", "https://openreview.net/forum?id=ZfBuhzE556"),  # not the same title as DPO's
        (50, "ACC-Collab: Actor-Critic for Multi-Agent Collaboration", "https://openreview.net/forum?id=nfKfAzkiez"),
        (55, "OpenManus-RL (duplicate listing)", "https://github.com/OpenManus/OpenManus-RL"),
    ]  # fmt: skip
    assert not any("family" in (p.title or "") for p in read.papers)


def test_one_id_under_titles_that_disagree_is_warned_of(run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # YsTvT links five tools to arXiv 2405.14751 (AGILE's id); they count once, as line 6's
    monkeypatch.chdir(REPO)
    path = YSTVT.relative_to(REPO)
    result = run_cli("coverage", str(path))
    data = json.loads(run_cli("coverage", "--json", str(path)).stdout)["lists"][0]
    message = (
        "arXiv 2405.14751 is listed under titles that disagree ("
        "line 6 'Tool-Planner: Task Planning with Clusters across Multiple T…', "
        "line 10 'NaviAgent: Bilevel Planning on Tool Dependency Graphs for F…', "
        "line 15 'ToRL: Scaling Tool-Integrated RL', "
        "line 16 'ToolDial: Multi-turn Dialogue Generation Method for Tool-Au…', "
        "line 19 'AGILE: A Novel Reinforcement Learning Framework of LLM Agen…'); "
        "it is counted once, as the paper of line 6"
    )
    assert result.exit_code == 0
    assert result.stderr == f"{path}:6: warning: {message}\n"
    assert data["warnings"] == [{"line": 6, "message": message}]
    assert data["listed"] == len(data["papers"]) == 11


@pytest.mark.parametrize(
    ("text", "warned"),
    [
        # one paper under its title and its name, or two forms of one title: no warning
        ("| ProRL: Prolonged RL | [Paper](https://arxiv.org/abs/2505.24864) |\n|-|-|\n| ProRL | [Paper](https://arxiv.org/abs/2505.24864) |\n", []),
        ("| MASLab: A Unified Codebase | [Paper](https://arxiv.org/abs/2505.16988) |\n|-|-|\n| MASLab (duplicate listing) | [Paper](https://arxiv.org/abs/2505.16988) |\n", []),
        ("- [A Team Paper](https://arxiv.org/abs/2503.03686)\n- [A Team Paper again](https://arxiv.org/pdf/2503.03686v2)\n", []),
        ("- [Paper](https://arxiv.org/abs/2503.03686)\n- [Team Paper](https://arxiv.org/abs/2503.03686)\n", []),  # no title
        # two works under one id, by arXiv id or DOI
        ("- [Tool-Planner: Clusters](https://arxiv.org/abs/2405.14751)\n- [AGILE: A Novel RL Framework](https://arxiv.org/abs/2405.14751)\n",
         [(1, "arXiv 2405.14751 is listed under titles that disagree (line 1 'Tool-Planner: Clusters', line 2 'AGILE: A Novel RL Framework'); it is counted once, as the paper of line 1")]),
        ("- [Learning Team Play](https://doi.org/10.1145/1.2)\n\n- [Coordinating Teams](https://dl.acm.org/doi/10.1145/1.2)\n",
         [(1, "DOI 10.1145/1.2 is listed under titles that disagree (line 1 'Learning Team Play', line 3 'Coordinating Teams'); it is counted once, as the paper of line 1")]),
        # a sentence holding the short title joins it to the full title: one group, no warning
        ("> **Based on**: [Agentic Reasoning: A Survey](https://arxiv.org/abs/2601.12538)\n\nWe released a survey on Agentic Reasoning! It is on [arxiv](https://arxiv.org/abs/2601.12538).\n\n- [Agentic Reasoning](https://arxiv.org/abs/2601.12538)\n", []),
        # a line naming several papers gives them no title of their own
        ("Tool use: 2405.14751 Tool-Planner; 2507.01489 Agent-as-Tool\n\nAGILE Agent Framework: 2405.14751; 2505.00024\n", []),
    ],
)  # fmt: skip
def test_disagreeing_titles(tmp_path: Path, text: str, warned: list[tuple[int, str]]) -> None:
    path = tmp_path / "list.md"
    path.write_text(text, "utf-8")
    read = read_list(path)
    assert [(p.line, p.message) for p in read.problems] == warned
    assert disagreements(read.papers, read.shown) == []  # the list read keeps each id once


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("ProRL", "ProRL: Prolonged Reinforcement Learning", True),
        ("MASLab (duplicate listing)", "MASLab: A Unified Codebase", True),
        ("OpenManus-RL - live tuning", "OpenManus-RL: Live-Streamed RL Tuning", True),
        ("Beta debate with message credit", "Beta debate with messages credit", True),
        ("Gödel Agent", "Godel Agent", True),
        ("Tool-Planner: Task Planning", "AGILE: A Novel Reinforcement Learning Framework", False),
        ("StarPO", "RAGEN: Understanding Self-Evolution", False),
        ("β-DPO", "DPO", True),  # one holds the other: a shorter name of one paper, as far as a list can tell
    ],
)
def test_titles_that_may_name_one_paper(a: str, b: str, same: bool) -> None:
    assert same_title(a, b) == same_title(b, a) == same


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
        # a label of two words is no title, and a PDF link so labelled names a paper on any host
        ("- [ Learning Team Play ] [ [PDF LINK](https://eprints.example.ac.uk/1/main.pdf) ]\n",
         [(1, None, None, "Learning Team Play")]),
        ("| Learning Team Play | Smith et al. | [ACM DOI](https://dl.acm.org/doi/10.1145/1.2) |\n|---|---|---|\n| Coordinating Teams | Li | [AAAI PDF](https://cdn.example.org/x.pdf) |\n",
         [(1, None, "10.1145/1.2", "Learning Team Play"), (3, None, None, "Coordinating Teams")]),
        # sibling headings over one paper each title it, and one over only a code link is a work
        ("### Maestro\n- Paper(s): [Paper](https://arxiv.org/abs/2605.22177)\n\n### DrMAS\n- `https://github.com/a/drmas`\n- Paper(s): [Paper](https://arxiv.org/abs/2602.08847)\n\n### MAPoRL\n- `https://github.com/a/maporl` · date: 2025.8\n- Paper(s): —\n",
         [(2, "2605.22177", None, "Maestro"), (6, "2602.08847", None, "DrMAS"), (8, None, None, "MAPoRL")]),
        # ... but not headings of sections that hold several papers or none
        ("## Surveys\n- [Paper](https://arxiv.org/abs/2503.03686)\n- [Paper](https://arxiv.org/abs/2510.11062)\n## Methods\n- [Paper](https://arxiv.org/abs/2410.08115)\n## Tools\n- [Code](https://github.com/a/b)\n",
         [(2, "2503.03686", None, None), (3, "2510.11062", None, None), (5, "2410.08115", None, None)]),
        ("## Citation\n```bibtex\n@misc{x, title={Our Survey of Teams}, eprint={2503.03686}, archivePrefix={arXiv}}\n```\n## License\nSee [the licence](https://creativecommons.org/licenses/by/4.0/).\n",
         [(3, "2503.03686", None, "Our Survey of Teams")]),
        # BibTeX in a block not declared BibTeX is read when it is written as entries; code is not
        ("```\n@article{y,\n  title = {Teams of Agents},\n  doi = {10.1234/teams}\n}\n```\n```python\n@dataclass(frozen=True)\nclass Team: ...\n```\n",
         [(2, None, "10.1234/teams", "Teams of Agents")]),
        ("```\n@dataclass(frozen=True)\nclass Team: ...\n```\n", []),
        # in a list made mostly of papers, a titled item with only a code link is a work; anchors are not
        ("- [First Team Paper](https://arxiv.org/abs/2503.03686)\n- [Second Team Paper](https://arxiv.org/abs/2510.11062)\n- **Team Trainer Library** [Code](https://github.com/a/b)\n- Back to [the top](#top)\n",
         [(1, "2503.03686", None, "First Team Paper"), (2, "2510.11062", None, "Second Team Paper"), (3, None, None, "Team Trainer Library")]),
        # ... but not a social link, nor in a list with one paper only
        ("- [First Team Paper](https://arxiv.org/abs/2503.03686)\n- [Second Team Paper](https://arxiv.org/abs/2510.11062)\n- Follow the authors on [Twitter](https://twitter.com/x)\n",
         [(1, "2503.03686", None, "First Team Paper"), (2, "2510.11062", None, "Second Team Paper")]),
        ("- [A Team Paper](https://arxiv.org/abs/2503.03686)\n- **Our Team Library** [Code](https://github.com/a/b)\n",
         [(1, "2503.03686", None, "A Team Paper")]),
        # ... nor in a list of a paper among other links
        ("- [A Team Paper](https://arxiv.org/abs/2503.03686)\n- Follow us on [Twitter](https://twitter.com/x)\n- Star the [repository of this list](https://github.com/a/b)\n",
         [(1, "2503.03686", None, "A Team Paper")]),
        # in a table made mostly of papers, a titled row with a code link or none is a work; a
        # section's row is not
        ("| Title | Link |\n|---|---|\n| **Trained teams** | |\n| First Team Paper | [Paper](https://arxiv.org/abs/2503.03686) |\n| Second Team Paper | [Paper](https://arxiv.org/abs/2510.11062) |\n| Team Trainer | [Code](https://github.com/a/b) |\n| Unreleased Team Method | *(no public repo)* |\n",
         [(4, "2503.03686", None, "First Team Paper"), (5, "2510.11062", None, "Second Team Paper"), (6, None, None, "Team Trainer"), (7, None, None, "Unreleased Team Method")]),
        # ... but not in a table of tools with one paper
        ("| Name | Link |\n|---|---|\n| Tool One | [GitHub](https://github.com/a/one) |\n| Tool Two | [GitHub](https://github.com/a/two) |\n| Tool Paper | [Paper](https://arxiv.org/abs/2503.03686) |\n",
         [(5, "2503.03686", None, "Tool Paper")]),
        # sibling headings over tables are no entries: each row is one, titled by its link's
        # text (a method's name) before the row's first cell
        ("### Observability\n| Reference | Status |\n|---|---|\n| [AgentCoord](https://arxiv.org/abs/2404.11943) | supporting |\n\n### Research Implementations\n| Reference | Status |\n|---|---|\n| [MineCollab](https://mindcraft-minecollab.github.io/) | important |\n\n### Benchmarks\n| Reference | Status |\n|---|---|\n| [GAIA](https://arxiv.org/abs/2311.12983) | important |\n",
         [(4, "2404.11943", None, "AgentCoord"), (14, "2311.12983", None, "GAIA")]),
        # ... and a table among headed entries is no entry of its own: its rows are
        ("### Maestro\n- Paper(s): [Paper](https://arxiv.org/abs/2605.22177)\n\n### DrMAS\n- Paper(s): [Paper](https://arxiv.org/abs/2602.08847)\n\n### Research Implementations\n| Reference |\n|---|\n| [MineCollab](https://mindcraft-minecollab.github.io/) |\n",
         [(2, "2605.22177", None, "Maestro"), (5, "2602.08847", None, "DrMAS")]),
        ("| Area | Reference | Note |\n|---|---|---|\n| Protocols & Interoperability | [SEMAP](https://arxiv.org/abs/2510.12120) | a protocol |\n",
         [(3, "2510.12120", None, "SEMAP")]),
        # ... nor headings over papers with titles of their own
        ("### Surveys\n- [A Survey of Agent Teams](https://arxiv.org/abs/2503.03686)\n### Benchmarks\n- [TeamBench: Measuring Teams](https://arxiv.org/abs/2510.11062)\n### Tools\n- [LangGraph](https://github.com/langchain-ai/langgraph)\n",
         [(2, "2503.03686", None, "A Survey of Agent Teams"), (4, "2510.11062", None, "TeamBench: Measuring Teams")]),
        # a list citing itself in BibTeX (its repository, no id) names no paper
        ("## Citation\n```bibtex\n@misc{awesome, title={Awesome Agent Teams}, howpublished={\\url{https://github.com/a/b}}}\n```\n", []),
        # titles that differ by a Greek letter are two papers
        ("- [β-DPO Method](https://openreview.net/forum?id=a)\n- [DPO Method](https://openreview.net/forum?id=b)\n",
         [(1, None, None, "β-DPO Method"), (2, None, None, "DPO Method")]),
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
        ((), "Error: give the curated lists to compare (FILE...), or --estimate"),
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


@pytest.mark.parametrize(
    ("listed", "record", "agrees"),
    [
        # a coined name decides alone
        ("ACC-Collab: Actor-Critic for Multi-Agent Collaboration", "ACC-Collab: An Actor-Critic Approach to Multi-Agent LLM Collaboration", True),
        ("Memory-R1: RL Memory Manager", "Memory-R1: Enhancing Large Language Model Agents to Manage Memories", True),
        ("MALT: Team Training", "MALT: Improving Reasoning with Multi-Agent LLM Training", True),
        # a plain word needs the subtitles to agree
        ("Optima: Optimizing Effectiveness and Efficiency of Agents", "Optima: Optimizing Effectiveness and Efficiency for LLM-Based Multi-Agent System", True),
        ("Position: Agents Need Memory", "Position: Multi-Agent Systems Should Learn Orchestration", False),
        ("Flow: A Plumbing Survey", "Flow: Modularized Agentic Workflow Automation", False),
        ("Chain of Agents: Collaborating on Long-Context Tasks", "Chain of Agents: Large Language Models Collaborating on Long-Context Tasks", True),
        ("Chain of Agents: Safety", "Chain of Agents: Large Language Models Collaborating on Long-Context Tasks", False),
        ("Flow: Large Language Models", "Flow: Modularized Agentic Workflow Automation", False),  # only common words
    ],
)  # fmt: skip
def test_a_title_named_like_a_record_is_it_when_the_rest_agrees(listed: str, record: str, agrees: bool) -> None:
    assert head_agrees(listed, record) == agrees


@pytest.mark.parametrize(
    ("line", "record"),
    [
        ("- [ReMA: Another Subtitle](https://openreview.net/forum?id=x)", "rema2025"),  # no id: the name decides
        ("- [ReMA: Another Subtitle](https://arxiv.org/abs/2601.00001)", None),  # the record's own arXiv id differs
        (
            "- [MAPoRL: Another Subtitle](https://arxiv.org/abs/2601.00002)",
            "maporl",
        ),  # the record has a DOI, no arXiv id
        ("- [MAPoRL: Another Subtitle](https://doi.org/10.1234/other)", None),  # ... and another DOI
        ("- [SiriuS: Other Words](https://doi.org/10.1234/other)", "sirius2025"),  # the record has no id at all
        (
            "- [Gamma: A Different Benchmark Entirely](https://openreview.net/forum?id=y)",
            None,
        ),  # a plain word, other words
    ],
)
def test_a_title_named_like_a_record_is_it_unless_an_id_says_otherwise(
    listed: Path, tmp_path: Path, line: str, record: str | None
) -> None:
    path = tmp_path / "list.md"
    path.write_text(line + "\n", "utf-8")
    matched = match_list(read_list(path), load_corpus(listed).corpus)
    assert [m.record for m in matched] == [record]


def test_real_lists_against_the_real_corpus() -> None:
    # The corpus grows, so only records it already holds are asserted.
    corpus = real_corpus()

    def records(path: Path) -> dict[int, str | None]:
        return {m.listed.line: m.record for m in match_list(read_list(path), corpus)}

    yhyao, kyegomez, thinkwee = records(YHYAO), records(KYEGOMEZ), records(THINKWEE)
    # yh-yao abbreviates ACC-Collab's title after its colon, linking OpenReview only
    assert yhyao[50] == "acc-collab2024"
    # kyegomez cites RouteLLM, excluded as E032, in BibTeX, and links the blog post on it
    assert kyegomez[35] == kyegomez[23] == "E032"
    # thinkwee names MAPoRL by a heading over its repository
    assert thinkwee[23] == "maporl"
    assert thinkwee[16] == "dr-mas"


def test_a_real_list_naming_a_method_alone_finds_its_record() -> None:
    # xhyumiracle's list names MaAS by its method name, linking OpenReview only; the corpus keeps
    # it as maas2025, titled "Multi-agent Architecture Search via Agentic Supernet"
    read = read_list(FIXTURES / "lists" / "xhyumiracle-awesome-agenticllm-rl-papers-excerpt.md")
    matched = {m.listed.title: m.record for m in match_list(read, real_corpus())}
    assert matched["MaAS"] == "maas2025"
