"""venues.yaml: the registry, every record's BibTeX held to its venue, and the two inconsistencies refused."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import PAPER_TEXT, REPO, Corpus, fixture_corpus, real_corpus
from masrl.corpus._venues import read_venues, redundant, venues_schema
from masrl.corpus._vocab import load_taxonomy

TAXONOMY = load_taxonomy(REPO)
VENUES, _PROBLEMS = read_venues(REPO, TAXONOMY)


def test_the_real_registry_is_valid() -> None:
    assert _PROBLEMS == []
    assert VENUES.loaded


# -- the broken fixture: every way a record can disagree with its venue, in file order


def expected() -> list[str]:
    return [
        "papers/blog.yaml:11:3: bibtex.journal: bibtex.journal 'Some Company Blog' does not fit: venue (line 8) "
        "is 'Blog Post', cited as @misc, which names no venue; remove bibtex.journal",
        "papers/elsewhere.yaml:12:3: bibtex.booktitle: bibtex.booktitle 'ICML 2025 Multi-Agent Systems Workshop' "
        "names ICML workshop, but venue (line 9) is 'ACL 2026' (ACL): correct the one that is wrong",
        "papers/findings.yaml:12:3: bibtex.booktitle: bibtex.booktitle 'Findings of the Association for "
        "Computational Linguistics: ACL 2024' names Findings of ACL, but venue (line 9) is 'ACL 2024' (ACL): "
        "correct the one that is wrong",
        "papers/late.yaml:7:1: year: year 2026 is later than the venue's year (venue (line 9) is 'ICLR 2024'); "
        "year is the year of first appearance, never after the published version",
        "papers/misfit.yaml:12:3: bibtex.journal: bibtex.journal 'International Conference on Learning "
        "Representations' does not fit: venue (line 9) is 'ICLR 2025', cited as @inproceedings, which names it "
        "in booktitle; remove bibtex.journal",
        "papers/misspelt.yaml:9:1: venue: venue 'ICRL 2025' is not in venues.yaml (did you mean 'ICLR 2025'?); "
        "write one of its forms, or add the venue there",
        "papers/moved.yaml:12:3: bibtex.journal: bibtex.journal 'arXiv preprint arXiv:2501.00011' cites the "
        "preprint, but venue (line 9) is 'ICML 2026', a published conference: remove bibtex.journal (venues.yaml "
        "cites it with booktitle 'Proceedings of the International Conference on Machine Learning (ICML)')",
        "papers/nameless-workshop.yaml:9:1: venue: venue 'NeurIPS 2025 Workshop' is a workshop: give its own "
        "name in bibtex.booktitle",
        "papers/no-id.yaml:8:1: venue: venue 'arXiv' is cited by its arXiv id: set arxiv, or name another venue",
        "papers/other-year.yaml:12:3: bibtex.booktitle: bibtex.booktitle 'Proceedings of the 62nd Annual Meeting "
        "of the Association for Computational Linguistics (ACL 2024)' names the year 2024, but venue (line 9) is "
        "'ACL 2025': correct the one that is wrong",
        "papers/yearless.yaml:9:1: venue: venue 'ICLR' is not in venues.yaml (did you mean 'ICLR 2024'?); "
        "write one of its forms, or add the venue there",
    ]


@pytest.fixture
def venue_cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fixture_corpus("venues", tmp_path, monkeypatch)


def test_every_disagreement_with_the_venue_is_reported(venue_cases: Path, run_cli: Any) -> None:
    result = run_cli("validate")
    assert result.stdout.splitlines() == expected()
    assert result.stderr == "11 errors in 12 files\n"
    assert result.exit_code == 1


def test_nothing_is_exported_while_a_venue_disagrees(venue_cases: Path, run_cli: Any) -> None:
    result = run_cli("export", "bib", "-o", "out.bib")
    assert result.exit_code == 1
    assert "Nothing was written" in result.stderr
    assert not (venue_cases / "out.bib").exists()


def test_the_record_that_agrees_exports_its_own_booktitle_and_pages(venue_cases: Path, run_cli: Any) -> None:
    # Arrange: only the record that agrees with its venue
    for path in (venue_cases / "papers").glob("*.yaml"):
        if path.stem != "fine":
            path.unlink()
    # Act
    result = run_cli("export", "bib")
    # Assert: the venue gives the type and the year; the record, the numbered booktitle and pages
    assert result.exit_code == 0, result.output
    assert result.stdout.split("\n\n", 1)[1].strip() == (
        "@inproceedings{fine,\n"
        "\ttitle = {{A published paper with the pages only the record knows}},\n"
        "\tauthor = {Doe, Jane},\n"
        "\tyear = {2025},\n"
        "\tbooktitle = {Proceedings of the 63rd Annual Meeting of the Association for Computational Linguistics "
        "(Volume 1: Long Papers)},\n"
        "\tpages = {100--110},\n"
        "\teprint = {2402.00020},\n"
        "\tarchiveprefix = {arXiv},\n"
        "\turl = {https://arxiv.org/abs/2402.00020}\n"
        "}"
    )


# -- the registry itself


_REGISTRY_CASES = [
    # (id, edit of venues.yaml's text, expected messages)
    (
        "unknown kind",
        ('    kind: journal\n    forms: ["TMLR {year}"]', '    kind: jornal\n    forms: ["TMLR {year}"]'),
        [
            "venues[{tmlr}].kind: kind must be one of 'conference', 'workshop', 'journal', 'preprint', 'submission', "
            "'web', not 'jornal' (did you mean 'journal'?)"
        ],
    ),
    (
        "id used twice",
        ("  - id: jmlr\n", "  - id: tmlr\n"),
        ["venues[{jmlr}].id: id 'tmlr' is already used by venues[{tmlr}]"],
    ),
    (
        "form used twice",
        ('forms: ["JMLR {year}"]', 'forms: ["TMLR {year}"]'),
        ["venues[{jmlr}].forms[0]: form 'TMLR {year}' is already a form of 'tmlr'"],
    ),
    (
        "unknown placeholder",
        ('forms: ["JMLR {year}"]', 'forms: ["JMLR {volume}"]'),
        ["venues[{jmlr}].forms[0]: a form may hold {year} and {note} once each, not {volume}"],
    ),
    (
        "a booktitle on a journal",
        (
            "    journal: Journal of Machine Learning Research (JMLR)",
            "    booktitle: Journal of Machine Learning Research (JMLR)",
        ),
        [
            "venues[{jmlr}]: an @article venue needs its journal (only a workshop leaves it to each record)",
            "venues[{jmlr}].booktitle: an @article entry has no booktitle; it names the venue in its journal",
        ],
    ),
    (
        "a published venue cited as misc",
        ("    entry_type: article\n    journal: Journal of Machine Learning Research (JMLR)", "    entry_type: misc"),
        [
            "venues[{jmlr}].entry_type: a journal is published: its works are cited as @inproceedings or @article naming it"
        ],
    ),
    (
        "unknown field",
        ("    aliases: [JMLR, Journal of Machine Learning Research, J. Mach. Learn. Res.]", "    alias: [JMLR]"),
        [
            "venues[{jmlr}].alias: unknown field (did you mean 'aliases'?); allowed fields are id, name, kind, forms, "
            "entry_type, booktitle, journal, aliases"
        ],
    ),
]


def _index(text: str, venue_id: str) -> int:
    ids = re.findall(r"^  - id: (\S+)$", text, re.M)
    return ids.index(venue_id)


@pytest.mark.parametrize(("edit", "messages"), [c[1:] for c in _REGISTRY_CASES], ids=[c[0] for c in _REGISTRY_CASES])
def test_a_broken_registry_is_reported_and_checks_no_record(
    corpus: Corpus, run_cli: Any, edit: tuple[str, str], messages: list[str]
) -> None:
    # Arrange: a valid paper, and venues.yaml broken one way
    text = (REPO / "venues.yaml").read_text("utf-8")
    assert text.count(edit[0]) == 1, edit[0]
    places = {name: _index(text, name) for name in ("tmlr", "jmlr")}
    broken = text.replace(edit[0], edit[1])
    corpus.write("venues.yaml", broken)
    corpus.paper(venue="venue: NoSuchVenue 2025")
    # Act
    result = run_cli("validate")
    # Assert: the registry's problems, each at its line, and the paper not held to a broken registry
    lines = result.stdout.splitlines()
    assert all(re.match(r"venues\.yaml:\d+:\d+: ", line) for line in lines), lines
    wanted = [m.replace("{tmlr}", str(places["tmlr"])).replace("{jmlr}", str(places["jmlr"])) for m in messages]
    assert [line.split(": ", 1)[1] for line in lines] == wanted
    assert result.exit_code == 1


def test_a_missing_registry_is_an_error_once_there_are_papers(corpus: Corpus, run_cli: Any) -> None:
    (corpus.root / "venues.yaml").unlink()
    assert run_cli("validate").exit_code == 0  # no paper needs it yet
    corpus.paper()
    result = run_cli("validate")
    assert result.stdout == (
        f"venues.yaml:1:1: (record): venues.yaml not found in {corpus.root}; every paper's venue is looked up there\n"
    )
    assert result.exit_code == 1


def test_the_hand_walk_agrees_with_jsonschema_on_broken_registries(tmp_path: Path) -> None:
    import jsonschema
    import yaml

    from masrl.corpus._schema_walk import schema_problems
    from masrl.corpus._yaml import load_text

    schema = venues_schema(TAXONOMY)
    text = (REPO / "venues.yaml").read_text("utf-8")
    for _, (old, new), _ in _REGISTRY_CASES:
        broken = text.replace(old, new)
        ours = {p.field for p in schema_problems(load_text(broken), schema, "venues.yaml")}
        theirs = {
            re.sub(r"\.(\d+)", r"[\1]", ".".join(map(str, e.absolute_path)))
            for e in jsonschema.Draft202012Validator(schema).iter_errors(yaml.safe_load(broken))
        }
        # additionalProperties is reported at the mapping by jsonschema, at the field by us
        assert {f.rsplit(".", 1)[0] if f.endswith(".alias") else f for f in ours} == theirs


# -- placing a venue, suggesting one, reading one from a source


@pytest.mark.parametrize(
    ("text", "venue_id", "year", "note"),
    [
        ("ICLR 2025", "iclr", 2025, None),
        ("ICLR 2024 Spotlight", "iclr", 2024, None),
        ("NeurIPS 2024 D&B", "neurips-db", 2024, None),
        ("NeurIPS 2025 Workshop", "neurips-workshop", 2025, None),
        ("Findings of ACL 2026", "findings-acl", 2026, None),
        ("arXiv", "arxiv", None, None),
        ("arXiv (ICLR 2026 submitted)", "arxiv", None, "ICLR 2026 submitted"),
        ("ACL ARR 2026 January Submission", "acl-arr-submission", 2026, "January Submission"),
        ("Mathematics of Operations Research", "moor", None, None),
        ("Blog Post", "blog-post", None, None),
        # not forms of the registry
        ("ICLR", None, None, None),
        ("iclr 2025", None, None, None),
        ("ICLR 2025 ", None, None, None),
        ("ICLR 25", None, None, None),
    ],
)
def test_place(text: str, venue_id: str | None, year: int | None, note: str | None) -> None:
    placed = VENUES.place(text)
    if venue_id is None:
        assert placed is None
    else:
        assert placed is not None
        assert (placed.venue.id, placed.year, placed.note) == (venue_id, year, note)


@pytest.mark.parametrize(
    ("text", "year", "suggestion"),
    [
        ("ICRL 2025", 2025, "ICLR 2025"),  # letters swapped
        ("iclr 2025", 2025, "ICLR 2025"),  # case
        ("NeurIps 2025", 2025, "NeurIPS 2025"),
        ("ICML", 1994, "ICML 1994"),  # the record's year fills a form that needs one
        ("Nature", 2025, "Nature 2025"),
        ("Findings ACL 2024", 2024, "Findings of ACL 2024"),
        ("Quarterly of Basket Weaving", 2025, None),  # nothing in the registry is near it
    ],
)
def test_suggestion(text: str, year: int, suggestion: str | None) -> None:
    assert VENUES.suggestion(text, year) == suggestion


@pytest.mark.parametrize(
    ("booktitle", "year", "venue"),
    [
        (
            "Proceedings of the 63rd Annual Meeting of the Association for Computational Linguistics (Volume 1: Long Papers)",
            2025,
            "ACL 2025",
        ),
        ("Findings of the Association for Computational Linguistics: ACL 2024", 2024, "Findings of ACL 2024"),
        ("Findings of the Association for Computational Linguistics: EMNLP 2025", 2025, "Findings of EMNLP 2025"),
        ("Findings of the Association for Computational Linguistics: NAACL 2025", 2025, "Findings of NAACL 2025"),
        ("Proceedings of the 2025 Conference of the Nations of the Americas Chapter of the ACL", 2025, "NAACL 2025"),
        ("Advances in Neural Information Processing Systems", 2025, "NeurIPS 2025"),
        (
            "Advances in Neural Information Processing Systems 37, Datasets and Benchmarks Track",
            2024,
            "NeurIPS 2024 D&B",
        ),
        ("The Fourteenth International Conference on Learning Representations", 2026, "ICLR 2026"),
        ("Forty-second International Conference on Machine Learning", 2025, "ICML 2025"),
        ("ICML 2025 Workshop on Multi-Agent Systems", 2025, "ICML 2025 Workshop"),
        ("Proceedings of the AAAI Conference on Artificial Intelligence", 2020, "AAAI 2020"),
        (
            "Proceedings of the 17th International Conference on Autonomous Agents and MultiAgent Systems",
            2018,
            "AAMAS 2018",
        ),
        ("First Conference on Language Modeling", 2024, "COLM 2024"),
        ("Transactions on Machine Learning Research", 2025, "TMLR 2025"),
        ("Mathematics of Operations Research", 2002, "Mathematics of Operations Research 2002"),
        ("Mathematics of Operations Research", None, "Mathematics of Operations Research"),
        ("ICLR 2025", 2024, "ICLR 2025"),  # the year in the text wins
        # names no venue of the registry
        ("Journal of Irreproducible Results", 2025, None),
        ("ICLR", None, None),  # ICLR's forms all need a year
    ],
)
def test_house_venue(booktitle: str, year: int | None, venue: str | None) -> None:
    assert VENUES.house_venue(booktitle, year) == venue


# -- what fmt drops: only what the venue gives word for word


@pytest.mark.parametrize(
    ("data", "changes"),
    [
        (
            {
                "venue": "arXiv",
                "arxiv": "2501.00001",
                "entry_type": "article",
                "bibtex": {"journal": "arXiv preprint arXiv:2501.00001"},
            },
            {"entry_type": None, "bibtex": None},
        ),
        (
            {
                "venue": "arXiv",
                "arxiv": "2501.00001v2",
                "bibtex": {"journal": "arXiv preprint arXiv:2501.00001", "pages": "1--2"},
            },
            {"bibtex": {"pages": "1--2"}},
        ),
        (
            {
                "venue": "ICLR 2025",
                "entry_type": "inproceedings",
                "bibtex": {"booktitle": "International Conference on Learning Representations (ICLR)"},
            },
            {"entry_type": None, "bibtex": None},
        ),
        # kept: an entry type or a booktitle that differs, and any record whose venue is unknown
        ({"venue": "ICLR 2025", "entry_type": "article", "bibtex": {"booktitle": "ICLR 2025 proceedings"}}, {}),
        ({"venue": "ACL 2025", "bibtex": {"booktitle": "Proceedings of the 63rd Annual Meeting of the ACL"}}, {}),
        ({"venue": "Somewhere 2025", "entry_type": "article", "bibtex": {"journal": "Somewhere"}}, {}),
        ({"venue": 2025}, {}),
    ],
)
def test_redundant(data: dict[str, Any], changes: dict[str, Any]) -> None:
    assert redundant(data, VENUES) == changes


def test_fmt_drops_what_the_venue_gives_and_keeps_comments(corpus: Corpus, run_cli: Any) -> None:
    # Arrange: a record of the old layout, with comments
    text = PAPER_TEXT.replace(
        "url: https://arxiv.org/abs/2501.00001\n",
        "url: https://arxiv.org/abs/2501.00001\n# how it is cited\nentry_type: article  # from arXiv\n"
        "bibtex:\n  journal: arXiv preprint arXiv:2501.00001\n  pages: 1--9\n",
    )
    path = corpus.paper(text=text)
    assert "entry_type is no longer a field" in run_cli("validate").stdout
    # Act
    result = run_cli("fmt")
    # Assert
    assert result.exit_code == 0, result.output
    after = path.read_text("utf-8")
    assert "entry_type" not in after
    assert "arXiv preprint" not in after
    assert "bibtex:\n  pages: 1--9\n" in after
    assert "# how it is cited" in after
    assert "# from arXiv" in after
    assert run_cli("validate").exit_code == 0
    assert run_cli("fmt", "--check").exit_code == 0


def test_fmt_keeps_an_entry_type_the_venue_contradicts(corpus: Corpus, run_cli: Any) -> None:
    path = corpus.paper(venue="venue: ICLR 2025", url="url: https://arxiv.org/abs/2501.00001\nentry_type: article")
    run_cli("fmt")
    assert path.read_text("utf-8").endswith("\nentry_type: article\n")  # kept, after the known fields
    result = run_cli("validate")
    assert result.stdout == (
        "papers/x.yaml:24:1: entry_type: entry_type is no longer a field: the venue gives it (venues.yaml); "
        "`masrl fmt` removes it where it agrees with the venue\n"
    )


# -- every record of the corpus against its venue, read back by two BibTeX readers


def _venue_named(text: str, venue_id: str) -> bool:
    scores = VENUES.scores(text)
    return scores.get(venue_id, 0) > 0 and scores[venue_id] == max(scores.values())


def test_every_record_exports_the_citation_its_venue_gives(tmp_path: Path) -> None:
    import bibtexparser
    from pybtex.database import parse_string

    from masrl.corpus._export import papers_bib

    # Arrange
    corpus = real_corpus()
    text = papers_bib(corpus)
    # Act: read by both readers
    ours = {e.key: e for e in bibtexparser.parse_string(text).entries}
    theirs = parse_string(text, "bibtex").entries
    # Assert
    assert set(ours) == set(theirs) == {p.key for p in corpus.papers}
    for p in corpus.papers:
        placed = corpus.venues.place(p.venue)
        assert placed is not None, p.key
        venue = placed.venue
        entry, other = ours[p.key], theirs[p.key]
        assert entry.entry_type == other.type == venue.entry_type, p.key
        assert int(entry["year"]) == int(other.fields["year"]) == (placed.year or p.year), p.key
        assert p.year <= int(entry["year"]), p.key  # first appearance, never after publication
        if venue.published:
            assert venue.entry_type in ("inproceedings", "article"), p.key
            container = "booktitle" if venue.entry_type == "inproceedings" else "journal"
            named = str(other.fields[container])
            assert _venue_named(named, venue.id) or (venue.kind == "workshop" and "booktitle" in p.bibtex), p.key
            assert not re.search("arxiv|preprint", named, re.I), p.key
        elif venue.kind == "preprint":
            assert other.fields["journal"] == f"arXiv preprint arXiv:{re.sub(r'v[0-9]+$', '', p.arxiv or '')}", p.key
        else:
            assert entry.entry_type == "misc", p.key
            assert "howpublished" in other.fields, p.key


def test_gaia_is_cited_at_iclr_2024_and_counted_in_2023() -> None:
    from masrl.corpus._export import bib_citation

    gaia = real_corpus().paper("gaia2023")
    cite = bib_citation(gaia, VENUES)
    assert (gaia.year, cite.entry_type, cite.year) == (2023, "inproceedings", 2024)
    assert cite.fields == (("booktitle", "International Conference on Learning Representations (ICLR)"),)


def test_a_copy_without_the_registry_fails_with_one_message(
    tmp_path: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "c"
    shutil.copytree(REPO / "papers", root / "papers")
    shutil.copy(REPO / "taxonomy.yaml", root / "taxonomy.yaml")
    # the protocol whose rules records name, with the exclusions its rules cite as precedents and
    # the second readings its audit draws name
    shutil.copy(REPO / "protocol.yaml", root / "protocol.yaml")
    shutil.copytree(REPO / "exclusions", root / "exclusions")
    shutil.copytree(REPO / "audits", root / "audits")
    monkeypatch.chdir(root)
    monkeypatch.delenv("MASRL_ROOT", raising=False)
    result = run_cli("validate")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].startswith("venues.yaml:1:1: (record): venues.yaml not found in ")
    assert len(result.stdout.splitlines()) == 1


def test_validate_names_the_registry_like_a_record(corpus: Corpus, run_cli: Any) -> None:
    # Arrange: a valid paper, and a registry with one wrong kind
    corpus.paper()
    ok = run_cli("validate", "venues.yaml")
    text = (corpus.root / "venues.yaml").read_text("utf-8")
    corpus.write("venues.yaml", text.replace("    kind: journal\n", "    kind: jornal\n", 1))
    # Act
    broken = run_cli("validate", "venues.yaml")
    only_paper = run_cli("validate", "papers/x.yaml")
    # Assert: the registry is checked, never read as a paper; a paper alone does not show its problems
    assert (ok.exit_code, ok.stdout, ok.stderr) == (0, "", "0 errors in 1 file\n")
    assert broken.exit_code == 1
    assert [line.split(": ", 2)[1] for line in broken.stdout.splitlines()] == [f"venues[{_index(text, 'tmlr')}].kind"]
    assert broken.stderr == "1 error in 1 file\n"
    assert only_paper.stdout == ""
