"""masrl add: scaffolds from BibTeX or arXiv, refusing anything the corpus already has."""

from __future__ import annotations

import http.server
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, REPO
from masrl.corpus._bibtex import decode_latex
from masrl.corpus._venues import read_venues
from masrl.corpus._vocab import load_taxonomy
from masrl.living._scaffold import Candidate, candidates_from_bibtex, house_key, normalise_title, scaffold

TAXONOMY = load_taxonomy(REPO)
VENUES = read_venues(REPO, TAXONOMY)[0]
# The judgement fields a contributor fills in after `add`, so the scaffold becomes a record.
FILLED = {
    "affiliation": "unknown",
    "category": "benchmark",
    "rl": "no",
    "reward_type": "NA",
    "credit_unit": "NA",
    "topology": "NA",
    "scenario": "general",
    "role": "supporting",
    "verified": "no",
    "evidence_kind": "paper",
    "summary": "A summary.",
}

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
        "venue: Findings of ACL 2025",
        "url: https://aclanthology.org/2025.findings-acl.601/",
        "bibtex:",
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
        (  # accents and full-width forms unfold: the same title
            '@inproceedings{x, title={G{\\"a}mma: A Benchmark of Agent Teams}, author={L, K}, year={2023}}',
            "entry 'x' (line 1): not added: its title is the same as that of paper 'gamma': 'Gamma, a benchmark of agent teams'",
        ),
        (
            "@inproceedings{x, title={Ｇａｍｍａ: A Benchmark of Agent Teams}, author={L, K}, year={2023}}",
            "entry 'x' (line 1): not added: its title is the same as that of paper 'gamma': 'Gamma, a benchmark of agent teams'",
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


@pytest.mark.parametrize(
    ("title", "normalised"),
    [
        # case, punctuation and spaces go
        ("MAS-GPT: Training LLMs", "masgpttrainingllms"),
        ("under_score  and\ttabs", "underscoreandtabs"),
        # letters of every script count: a Greek letter tells two methods apart
        ("β-DPO", "βdpo"),
        ("DPO", "dpo"),
        ("τ²-Bench", "τ2bench"),
        ("多智能体强化学习", "多智能体强化学习"),
        # accents, full-width forms and ligatures unfold
        ("Gödel Agent", "godelagent"),
        ("Go\u0308del Agent", "godelagent"),
        ("Ｆｕｌｌ ｗｉｄｔｈ", "fullwidth"),
        ("Eﬃcient ﬁne-tuning", "efficientfinetuning"),
        ("STRASSE", "strasse"),
        ("Straße", "strasse"),
        ("", ""),
        ("—!?", ""),
    ],
)
def test_titles_are_compared_normalised(title: str, normalised: str) -> None:
    assert normalise_title(title) == normalised


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
    candidate = Candidate(title=title, authors=authors, et_al=False, year=year, venue="", url=None)
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


# -- real BibTeX as readers copy it (sources named in the fixture file)

REAL = (FIXTURES / "bib" / "real-entries.bib").read_text("utf-8")


@pytest.mark.parametrize(
    ("key", "authors", "venue", "arxiv", "url"),
    [
        # ACL Anthology, quoted values and tabs
        (
            "D18-1532",
            ["Kondratyuk, Daniel", "Gavenčiak, Tomáš", "Straka, Milan", "Hajič, Jan"],
            "EMNLP 2018",
            None,
            "http://aclweb.org/anthology/D18-1532",
        ),
        # DBLP: given names first, a long NeurIPS booktitle, \_ in the URL
        (
            "jbb_behaviors",
            [
                "Chao, Patrick",
                "Debenedetti, Edoardo",
                "Robey, Alexander",
                "Andriushchenko, Maksym",
                "Croce, Francesco",
                "Sehwag, Vikash",
                "Dobriban, Edgar",
                "Flammarion, Nicolas",
                "Pappas, George J.",
                "Tramèr, Florian",
                "Hassani, Hamed",
                "Wong, Eric",
            ],
            "NeurIPS 2024",
            None,
            "http://papers.nips.cc/paper_files/paper/2024/hash/63092d79154adebd7305dfd498cbff70-Abstract-Datasets_and_Benchmarks_Track.html",
        ),
        # DBLP: an arXiv preprint in CoRR
        (
            "xstest",
            [
                "Röttger, Paul",
                "Kirk, Hannah Rose",
                "Vidgen, Bertie",
                "Attanasio, Giuseppe",
                "Bianchi, Federico",
                "Hovy, Dirk",
            ],
            "arXiv",
            "2308.01263",
            "https://doi.org/10.48550/arXiv.2308.01263",
        ),
        # DBLP: Findings
        (
            "niche_hazard_qa",
            ["Hazra, Rima", "Layek, Sayan", "Banerjee, Somnath", "Poria, Soujanya"],
            "Findings of ACL 2024",
            None,
            "https://doi.org/10.18653/v1/2024.findings-acl.960",
        ),
        # Google Scholar: the arXiv id only in the journal
        (
            "mialon2023gaia",
            [
                "Mialon, Grégoire",
                "Fourrier, Clémentine",
                "Swift, Craig",
                "Wolf, Thomas",
                "LeCun, Yann",
                "Scialom, Thomas",
            ],
            "arXiv",
            "2311.12983",
            "https://arxiv.org/abs/2311.12983",
        ),
        # arXiv's export: UTF-8 names, eprint + archivePrefix
        (
            "debenedetti2024agentdojo",
            [
                "Debenedetti, Edoardo",
                "Zhang, Jie",
                "Balunović, Mislav",
                "Beurer-Kellner, Luca",
                "Fischer, Marc",
                "Tramèr, Florian",
            ],
            "arXiv",
            "2406.13352",
            "https://arxiv.org/abs/2406.13352",
        ),
        # PMLR proceedings title
        (
            "jovanovic2023fare",
            ["Jovanović, Nikola", "Balunović, Mislav", "Dimitrov, Dimitar I.", "Vechev, Martin"],
            "ICML 2023",
            None,
            "https://proceedings.mlr.press/v202/jovanovic23a.html",
        ),
        # a journal
        (
            "laurito2025aiaibias",
            ["Laurito, Walter", "Davis, Benjamin", "Grietzer, Peli", "Gavenčiak, Tomáš", "Böhm, Ada", "Kulveit, Jan"],
            "PNAS 2025",
            None,
            "https://www.pnas.org/doi/10.1073/pnas.2415697122",
        ),
    ],
)
def test_real_bibtex_gives_unicode_names_house_venue_and_arxiv(
    key: str, authors: list[str], venue: str, arxiv: str | None, url: str
) -> None:
    candidates, problems = candidates_from_bibtex(REAL, VENUES)
    assert problems == []
    found = {c.source.split("'")[1]: c for c in candidates}[key]
    assert found.authors == authors
    assert found.venue == venue
    assert found.arxiv == arxiv
    assert found.url == url
    assert "\\" not in found.title
    assert "{" not in found.title


def test_real_bibtex_titles_are_decoded() -> None:
    titles = {c.source.split("'")[1]: c.title for c in candidates_from_bibtex(REAL, VENUES)[0]}
    assert titles["laurito2025aiaibias"].startswith("AI–AI Bias: Large Language Models")
    assert (
        titles["xstest"]
        == "XSTest: A Test Suite for Identifying Exaggerated Safety Behaviours in Large Language Models"
    )
    assert titles["mialon2023gaia"] == "GAIA: a benchmark for General AI Assistants"


def test_add_scaffolds_the_issue_example_in_unicode(small: Path, run_cli: Any) -> None:
    bib = "@article{g, author = {Gaven{\\v{c}}iak, Tom{\\'a}{\\v{s}}}, title = {A note}, year = {2024}}\n"
    result = run_cli("add", "--bib", "-", "--dry-run", input=bib)
    assert result.exit_code == 0, result.output
    assert "  - Gavenčiak, Tomáš" in result.stdout.splitlines()


@pytest.mark.parametrize(
    ("latex", "text"),
    [
        # accents, braced and bare
        ("Gaven{\\v{c}}iak, Tom{\\'a}{\\v{s}}", "Gavenčiak, Tomáš"),
        ("Balunovi\\'{c}", "Balunović"),
        ("Gr{\\'e}goire", "Grégoire"),
        ('M{\\"u}ller', "Müller"),
        ('D\\"{o}rr', "Dörr"),
        ("Mart\\'{\\i}nez", "Martínez"),
        ("{\\'\\i}", "í"),
        ("Stra{\\ss}e", "Straße"),
        ("{\\AA}kesson", "Åkesson"),
        ("Ye{\\c{s}}il", "Yeşil"),
        ("Jo{\\~a}o", "João"),
        # punctuation and case protection
        ("{AI}--{AI}", "AI–AI"),
        ("Q{\\&}A in 50\\% of cases", "Q&A in 50% of cases"),
        ("{LLM}-Based", "LLM-Based"),
    ],
)
def test_latex_decoding(latex: str, text: str) -> None:
    assert decode_latex(latex) == text


# -- names survive BibTeX -> add -> record -> export bib -> bibtexparser

_LETTERS = (
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" + "áàâäãåčćçďéèêëěíìîïıłńňñóòôöõøřšśşťúùûüůýÿžźżßæœÅÉÖÜČŠŽŁØ"
)
_SPECIAL = "&%$#_-'."  # ^ is left out: LaTeX spells it \textasciicircum{}, which decoders read as U+02C6
_WORD = st.text(alphabet=_LETTERS + _SPECIAL, min_size=1, max_size=8).filter(lambda w: w[0] in _LETTERS)
_NAME = st.builds(
    lambda last, first: f"{' '.join(last)}, {' '.join(first)}",
    st.lists(_WORD, min_size=1, max_size=2),
    st.lists(_WORD, min_size=1, max_size=2),
).filter(lambda n: " and " not in f" {n.lower()} " and "others" not in n.lower())


def _as_bibtex(name: str) -> str:
    """*name* as BibTeX sources write it: each accented letter or special as a braced escape, {\\~n}."""
    from pylatexenc.latexencode import unicode_to_latex

    def one(ch: str) -> str:
        code = str(unicode_to_latex(ch, non_ascii_only=False, unknown_char_policy="keep"))
        return ch if code == ch else "{" + code + "}"

    return re.sub(r"([-'])(?=\1)", r"\1{}", "".join(one(ch) for ch in name))


@settings(max_examples=60, deadline=None)
@given(names=st.lists(_NAME, min_size=1, max_size=4, unique=True))
def test_names_round_trip_through_add_and_export(names: list[str]) -> None:
    import bibtexparser
    import yaml
    from bibtexparser import middlewares as m

    from masrl.corpus._export import bib_entry
    from masrl.corpus._records import Paper

    # Arrange: a BibTeX entry with the names LaTeX-encoded
    bib = "@article{k, title = {A title}, year = {2024}, author = {" + " and ".join(_as_bibtex(n) for n in names) + "}}"
    # Act: add's parser and scaffold, a completed record, the export, and bibtexparser again
    (candidate,), problems = candidates_from_bibtex(bib, VENUES)
    assert problems == []
    record = yaml.safe_load(scaffold(candidate, "k2024", TAXONOMY, VENUES))
    record |= FILLED | {"venue": "Tech Report"}
    paper = Paper.from_yaml(record, TAXONOMY)
    library = bibtexparser.Library()
    library.add(bib_entry(paper, VENUES))
    text = bibtexparser.write_string(library)
    back = bibtexparser.parse_string(
        text,
        append_middleware=[m.SeparateCoAuthors(), m.SplitNameParts(), m.MergeNameParts(style="last")],
    )
    # Assert
    assert paper.authors == tuple(names)
    assert [decode_latex(a) for a in back.entries[0]["author"]] == names
