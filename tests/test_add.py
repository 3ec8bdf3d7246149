"""masrl add: scaffolds from BibTeX or arXiv, refusing anything the corpus already has."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES
from masrl._scaffold import Candidate, house_key

OPTIMA = """@inproceedings{chen-etal-2025-optima,
    title = "Optima: Optimizing Effectiveness and Efficiency for {LLM}-Based Multi-Agent System",
    author = "Chen, Weize and Yuan, Jiarui and Qian, Chen and Yang, Cheng and Liu, Zhiyuan and Sun, Maosong",
    booktitle = "Findings of the Association for Computational Linguistics: ACL 2025",
    year = "2025",
    pages = "11534--11557",
    doi = "10.18653/v1/2025.findings-acl.601",
    url = "https://aclanthology.org/2025.findings-acl.601/",
}
"""


def test_a_new_paper_is_scaffolded(small: Path, run_cli: Any) -> None:
    # Arrange
    (small / "new.bib").write_text(OPTIMA, "utf-8")
    # Act
    result = run_cli("add", "--bib", "new.bib")
    # Assert
    assert result.exit_code == 0, result.output
    assert result.stdout == "wrote papers/optima2025.yaml\n"
    text = (small / "papers" / "optima2025.yaml").read_text("utf-8")
    assert text.startswith("# yaml-language-server: $schema=../schemas/paper.schema.json\n")
    for line in (
        'title: "Optima: Optimizing Effectiveness and Efficiency for LLM-Based Multi-Agent System"',
        "  - Chen, Weize",
        "  - Sun, Maosong",
        "year: 2025",
        "doi: 10.18653/v1/2025.findings-acl.601",
        'venue: "Findings of the Association for Computational Linguistics: ACL 2025"',
        "url: https://aclanthology.org/2025.findings-acl.601/",
        "entry_type: inproceedings",
        "  pages: 11534--11557",
        "# what kind of contribution: rl_method (RL method), framework, benchmark, survey, industry, classical_marl (Classical MARL)",
        "category:",
    ):
        assert line in text.splitlines(), line


def test_the_scaffold_guides_validation_to_the_fields_left(small: Path, run_cli: Any) -> None:
    (small / "new.bib").write_text(OPTIMA, "utf-8")
    assert run_cli("add", "--bib", "new.bib").exit_code == 0
    result = run_cli("validate", "papers/optima2025.yaml")
    assert result.exit_code == 1
    fields = [line.split(": ", 2)[1] for line in result.stdout.splitlines()]
    assert fields == [
        "affiliation",
        "category",
        "rl",
        "reward_type",
        "credit_unit",
        "topology",
        "scenario",
        "role",
        "verified",
        "evidence_kind",
        "summary",
    ]


def test_stdin_and_several_entries(small: Path, run_cli: Any) -> None:
    second = (
        OPTIMA.replace("chen-etal-2025-optima", "other")
        .replace("Optima: Optimizing", "Another Study of")
        .replace("10.18653/v1/2025.findings-acl.601", "10.1/other")
        .replace("2025.findings-acl.601/", "other/")
    )
    result = run_cli("add", "--bib", "-", input=OPTIMA + second)
    assert result.exit_code == 0, result.output
    assert result.stdout == "wrote papers/optima2025.yaml\nwrote papers/chen2025.yaml\n"


@pytest.mark.parametrize(
    ("bib", "message"),
    [
        # -- already retained (by arXiv id, by URL, by title)
        (
            "@article{x, title={Whatever}, author={A, B}, year={2025}, eprint={2501.00001}, archiveprefix={arXiv}}",
            "entry 'x' (line 1): not added: arXiv 2501.00001 already belongs to paper 'alpha' (papers/alpha.yaml)",
        ),
        (
            "@misc{x, title={Whatever}, year={2026}, url={https://example.com/delta-2}}",
            "entry 'x' (line 1): not added: URL example.com/delta-2 already belongs to paper 'delta' (papers/delta.yaml)",
        ),
        (
            "@inproceedings{x, title={Gamma: A Benchmark of Agent Teams}, author={L, K}, year={2023}}",
            "entry 'x' (line 1): not added: its title is the same as that of paper 'gamma': 'Gamma, a benchmark of agent teams'",
        ),
        (
            "@article{x, title={Beta debate with messages credit}, author={S, A}, year={2024}}",
            "entry 'x' (line 1): not added: its title is nearly the same as that of paper 'beta': 'Beta debate with message credit'",
        ),
        # -- already excluded
        (
            "@article{x, title={Something}, author={A, B}, year={2023}, journal={arXiv preprint arXiv:2305.00009}}",
            "entry 'x' (line 1): not added: arXiv 2305.00009 already belongs to exclusion E001 (exclusions/E001.yaml), screened out on 2026-04-26",
        ),
        # -- twice in the same input
        (
            "@article{a, title={One}, author={A, B}, year={2025}, doi={10.5555/1}}\n@article{b, title={Two}, author={A, B}, year={2025}, doi={10.5555/1}}",
            "entry 'b' (line 2): not added: DOI 10.5555/1 already belongs to entry 'a' (line 1) of the same input",
        ),
        # -- does not parse / is empty / has no title
        (
            "@article{broken, title = {Unclosed\n",
            "BibTeX line 1: '@article{broken, title = {Unclosed': Unexpectedly reached end of file.",
        ),
        ("just some text", "no BibTeX entry found in the input"),
        ("@article{notitle, author={A, B}, year={2025}}", "entry 'notitle' (line 1): has no title"),
    ],
)
def test_refusals_write_nothing(small: Path, run_cli: Any, bib: str, message: str) -> None:
    before = sorted(p.name for p in (small / "papers").iterdir())
    result = run_cli("add", "--bib", "-", input=bib)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [message, "Nothing was written."]
    assert sorted(p.name for p in (small / "papers").iterdir()) == before


def test_one_refusal_stops_the_whole_batch(small: Path, run_cli: Any) -> None:
    dupe = "@article{x, title={Whatever}, author={A, B}, year={2025}, eprint={2501.00001}, archiveprefix={arXiv}}\n"
    result = run_cli("add", "--bib", "-", input=OPTIMA + dupe)
    assert result.exit_code == 1
    assert not (small / "papers" / "optima2025.yaml").exists()


def test_needs_exactly_one_source(small: Path, run_cli: Any) -> None:
    result = run_cli("add")
    assert result.exit_code == 1
    assert result.stderr == "Error: give either --bib FILE (or -) or --arxiv ID\n"


def test_dry_run_prints_without_writing(small: Path, run_cli: Any) -> None:
    result = run_cli("add", "--bib", "-", "--dry-run", input=OPTIMA)
    assert result.exit_code == 0
    assert result.stdout.startswith("# --- papers/optima2025.yaml\n# yaml-language-server:")
    assert not (small / "papers" / "optima2025.yaml").exists()


@pytest.mark.parametrize(
    ("title", "authors", "year", "taken", "key"),
    [
        ("ReMA: Learning to Meta-Think", ["Wan, Ziyu"], 2025, set(), "rema2025"),
        ("WideSeek-R1: Exploring Width Scaling", ["Xu, Zelai"], 2026, set(), "wideseek-r1-2026"),
        ("Multi-Agent Collaboration via Evolving Orchestration", ["Dang, Yufan"], 2025, set(), "dang2025"),
        ("Learning to Cooperate in Teams: a study", ["Müller, Jörg"], 2024, set(), "muller2024"),
        ("ReMA: again", ["A, B"], 2025, {"rema2025"}, "rema2025-b"),
        ("ReMA: again", ["A, B"], 2025, {"rema2025", "rema2025-b"}, "rema2025-c"),
    ],
)
def test_house_keys(title: str, authors: list[str], year: int, taken: set[str], key: str) -> None:
    candidate = Candidate(
        title=title, authors=authors, et_al=False, year=year, venue="", url=None, entry_type="article"
    )
    assert house_key(candidate, taken) == key


@pytest.fixture
def arxiv_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A loopback server answering like the arXiv API from recorded feeds."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            name = "2410.08115.xml" if "2410.08115" in self.path else "missing.xml"
            body = (FIXTURES / "arxiv" / name).read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "application/atom+xml")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/api/query"
    monkeypatch.setenv("MASRL_ARXIV_API", url)
    yield url
    server.shutdown()
    server.server_close()


def test_arxiv_metadata_from_a_recorded_answer(small: Path, run_cli: Any, arxiv_api: str) -> None:
    result = run_cli("add", "--arxiv", "2410.08115")
    assert result.exit_code == 0, result.output
    text = (small / "papers" / "optima2024.yaml").read_text("utf-8")
    assert 'title: "Optima: Optimizing Effectiveness and Efficiency for LLM-Based Multi-Agent System"' in text
    assert 'arxiv: "2410.08115"' in text
    assert "  - Chen, Weize" in text.splitlines()
    assert "url: https://arxiv.org/abs/2410.08115" in text.splitlines()


def test_unknown_arxiv_id(small: Path, run_cli: Any, arxiv_api: str) -> None:
    result = run_cli("add", "--arxiv", "2412.99999")
    assert result.exit_code == 1
    assert result.stderr == "Error: arXiv has no paper 2412.99999\n"


def test_malformed_arxiv_id(small: Path, run_cli: Any, arxiv_api: str) -> None:
    result = run_cli("add", "--arxiv", "24.1")
    assert result.exit_code == 1
    assert result.stderr.startswith("'24.1' is not an arXiv id (expected e.g. 2508.04652)")


def test_offline_is_a_clear_error(small: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MASRL_ARXIV_API", "http://127.0.0.1:9/api/query")  # nothing listens on the discard port
    result = run_cli("add", "--arxiv", "2410.08115")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: cannot reach the arXiv API at http://127.0.0.1:9/api/query (")
    assert "masrl add --bib -" in result.stderr


def test_a_second_scaffold_while_the_first_is_unfinished(small: Path, run_cli: Any) -> None:
    # Arrange: a first scaffold, its judgement fields still empty.
    (small / "new.bib").write_text(OPTIMA, "utf-8")
    assert run_cli("add", "--bib", "new.bib").exit_code == 0
    other = (
        OPTIMA.replace("chen-etal-2025-optima", "other")
        .replace("Optima: Optimizing", "Another Study of")
        .replace("10.18653/v1/2025.findings-acl.601", "10.1/other")
        .replace("2025.findings-acl.601/", "other/")
    )
    (small / "other.bib").write_text(other, "utf-8")
    # Act
    second = run_cli("add", "--bib", "other.bib")
    again = run_cli("add", "--bib", "new.bib")
    # Assert: the second is added; the first, though unfinished, still counts as taken.
    assert second.exit_code == 0, second.output
    assert second.stdout == "wrote papers/chen2025.yaml\n"
    assert second.stderr.startswith("note: papers/optima2025.yaml still has errors; `masrl validate` lists them\n")
    assert again.exit_code == 1
    assert (
        "entry 'chen-etal-2025-optima' (line 1): not added: DOI 10.18653/v1/2025.findings-acl.601 already belongs "
        "to unfinished paper 'optima2025'" in again.stderr.splitlines()
    )
