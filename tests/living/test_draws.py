"""masrl audit --draw N --seed S: a reproducible random draw of papers for the blind second reading."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import AUDIT_TEXT, FIXTURES, REPO, Corpus
from masrl.corpus._vocab import load_taxonomy
from masrl.living._protocol import load_protocol

PROTOCOL = load_protocol(REPO, load_taxonomy(REPO))
# The pools of two real draws: the keys with no audit record when each was made (see the file).
POOLS: dict[int, list[str]] = yaml.safe_load((FIXTURES / "living" / "audit-pools.yaml").read_text("utf-8"))


def _papers(corpus: Corpus, keys: Iterable[str], *, origin: str = "discovery", first: int = 0, extra: str = "") -> None:
    """Write a paper for each of *keys* (synthetic: made-up arXiv ids 2501.NNNNN from *first* on)."""
    for i, key in enumerate(keys, start=first):
        corpus.paper(
            key,
            title=f"title: A study of teams, part {i}",
            arxiv=f'arxiv: "2501.{i:05d}"',
            url=f"url: https://arxiv.org/abs/2501.{i:05d}",
            origin=f"origin: {origin}",
            added=f'added: "2026-06-01"\n{extra}',
        )


def _audits(corpus: Corpus, keys: Iterable[str]) -> None:
    for key in keys:
        corpus.write(f"audits/{key}.yaml", AUDIT_TEXT.replace("key: x\n", f"key: {key}\n"))


def _files(root: Path) -> dict[str, float]:
    return {str(p.relative_to(root)): p.stat().st_mtime for p in sorted(root.rglob("*"))}


@pytest.mark.parametrize("seed", sorted(POOLS))
def test_a_draw_is_made_again_from_its_pool(corpus: Corpus, run_cli: Any, seed: int) -> None:
    # Arrange: the pool of a draw protocol.yaml lists, beside papers that are not in it: papers
    # of the survey, and post-survey papers that already have their second reading
    listed = next(d for r in PROTOCOL.rounds for d in r.audit_draws if d.seed == seed)
    _papers(corpus, POOLS[seed])
    _papers(corpus, ["survey-paper2024", "zz-survey2023"], origin="survey", first=1000)
    _papers(corpus, ["aa-audited2025", "zz-audited2026"], first=2000)
    _audits(corpus, ["aa-audited2025", "zz-audited2026"])
    # Act
    first = run_cli("audit", "--draw", str(len(listed.keys)), "--seed", str(seed), "--json", catch=False)
    again = run_cli("audit", "--draw", str(len(listed.keys)), "--seed", str(seed), "--json", catch=False)
    # Assert: the same papers protocol.yaml lists, every time
    assert first.exit_code == 0, first.output
    drawn = json.loads(first.stdout)
    assert tuple(drawn["keys"]) == listed.keys
    assert (drawn["seed"], drawn["size"], drawn["pool"]) == (seed, len(listed.keys), len(POOLS[seed]))
    assert again.stdout == first.stdout


def test_a_draw_prints_its_keys_and_its_protocol_entry(corpus: Corpus, run_cli: Any) -> None:
    # Arrange: nine discovery papers, two of them audited; one survey paper
    keys = [f"team{n}-2025" for n in range(1, 10)]
    _papers(corpus, keys)
    _papers(corpus, ["survey-paper2024"], origin="survey", first=100)
    _audits(corpus, ["team1-2025", "team5-2025"])
    before = _files(corpus.root)
    # Act
    result = run_cli("audit", "--draw", "3", "--seed", "20261205", catch=False)
    # Assert: the keys, sorted, and the entry to paste; nothing written
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "3 of the 7 post-survey papers (origin discovery) with no audit record, drawn by random.Random(20261205).sample and sorted:",
        "  team2-2025",
        "  team6-2025",
        "  team8-2025",
        "",
        "To list the draw, add this to protocol.yaml under audit_draws: of the round it is for;",
        "`masrl validate` then asks for the second reading of each key, audits/<key>.yaml:",
        "",
        "      - seed: 20261205",
        '        drawn_from: "The 7 post-survey papers (origin discovery) with no audit record, sorted by key; 3 drawn."',
        "        keys: [team2-2025, team6-2025, team8-2025]",
    ]  # fmt: skip
    assert _files(corpus.root) == before


def test_a_long_draw_wraps_its_keys_as_protocol_yaml_does(corpus: Corpus, run_cli: Any) -> None:
    _papers(corpus, [f"a-rather-long-key-for-team-number-{n}-2025" for n in range(10, 16)])
    result = run_cli("audit", "--draw", "6", "--seed", "1", catch=False)
    entry = result.stdout.split("\n\n")[-1]
    assert entry.splitlines()[2:] == [
        "        keys: [a-rather-long-key-for-team-number-10-2025, a-rather-long-key-for-team-number-11-2025,",
        "          a-rather-long-key-for-team-number-12-2025, a-rather-long-key-for-team-number-13-2025,",
        "          a-rather-long-key-for-team-number-14-2025, a-rather-long-key-for-team-number-15-2025]",
    ]
    assert yaml.safe_load(entry)[0]["keys"] == [f"a-rather-long-key-for-team-number-{n}-2025" for n in range(10, 16)]


@pytest.mark.parametrize(
    ("args", "size", "expected"),
    [
        (["--round", "backfill"], 3, ["backfill-a2025", "backfill-c2025", "backfill-d2025"]),
        (["--round", "round-2"], 2, ["window-a2025", "window-b2025"]),
        ([], 5, ["backfill-a2025", "backfill-c2025", "backfill-d2025", "window-a2025", "window-b2025"]),
    ],
)
def test_a_rounds_draw_takes_only_its_papers(
    corpus: Corpus, run_cli: Any, args: list[str], size: int, expected: list[str]
) -> None:
    # Arrange: the repository's protocol; two round-2 papers (by date), three backfill papers
    # without an audit and one with
    shutil.copy(REPO / "protocol.yaml", corpus.root / "protocol.yaml")
    _papers(corpus, ["window-a2025", "window-b2025"])
    _papers(
        corpus,
        ["backfill-a2025", "backfill-b2025", "backfill-c2025", "backfill-d2025"],
        first=10,
        extra="round: backfill\n",
    )
    _audits(corpus, ["backfill-b2025"])
    # Act: the whole pool, so the draw is every paper of it
    result = run_cli("audit", *args, "--draw", str(size), "--seed", "3", "--json", catch=False)
    # Assert
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["keys"] == expected
    too_many = run_cli("audit", *args, "--draw", str(size + 1), "--seed", "3")
    assert too_many.exit_code == 1
    assert "asks for more papers than the pool holds" in too_many.stderr


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        # more papers than the pool holds
        (["--draw", "7", "--seed", "1"], 1, "Error: --draw 7 asks for more papers than the pool holds: 6 of the post-survey papers (origin discovery) have no audit record"),
        (["--draw", "7", "--seed", "1", "--round", "backfill"], 1, "Error: --draw 7 asks for more papers than the pool holds: 1 of the papers of the Backfill round (backfill) has no audit record"),
        # a bad seed
        (["--draw", "2", "--seed", "x"], 2, "Error: Invalid value for '--seed': 'x' is not a valid integer."),
        (["--draw", "2", "--seed", "1.5"], 2, "Error: Invalid value for '--seed': '1.5' is not a valid integer."),
        (["--draw", "2", "--seed", "-1"], 2, "Error: Invalid value for '--seed': the seed must be a whole number, 0 or more, not -1"),
        (["--draw", "2"], 1, "Error: --draw N needs --seed S: a draw takes its size and a fixed seed, e.g. --draw 6 --seed 20261204"),
        # a bad size, or no size
        (["--draw", "0", "--seed", "1"], 2, "Error: Invalid value for '--draw': the number of papers to draw must be a whole number, 1 or more, not 0"),
        (["--draw", "two", "--seed", "1"], 2, "Error: Invalid value for '--draw': 'two' is not a valid integer."),
        (["--seed", "1"], 1, "Error: --seed S needs --draw N: a draw takes its size and a fixed seed, e.g. --draw 6 --seed 20261204"),
        # a round protocol.yaml does not declare
        (["--draw", "1", "--seed", "1", "--round", "round-9"], 1, "Error: --round must be one of round-1, round-2, backfill, field-search, not 'round-9'"),
    ],
)  # fmt: skip
def test_a_draw_that_cannot_be_made_says_why(
    corpus: Corpus, run_cli: Any, args: list[str], code: int, message: str
) -> None:
    # Arrange: six discovery papers, one of the backfill round
    shutil.copy(REPO / "protocol.yaml", corpus.root / "protocol.yaml")
    _papers(corpus, [f"team{n}-2025" for n in range(1, 6)])
    _papers(corpus, ["named-2025"], first=10, extra="round: backfill\n")
    before = _files(corpus.root)
    # Act
    result = run_cli("audit", *args)
    # Assert: one clear line, no traceback, nothing printed to stdout or written
    assert (result.exit_code, result.stdout) == (code, "")
    assert result.stderr.splitlines()[-1] == message
    assert "Traceback" not in result.output
    assert _files(corpus.root) == before


def test_nothing_to_draw_when_every_paper_has_its_second_reading(corpus: Corpus, run_cli: Any) -> None:
    _papers(corpus, ["team1-2025", "team2-2025"])
    _audits(corpus, ["team1-2025", "team2-2025"])
    result = run_cli("audit", "--draw", "1", "--seed", "1")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: --draw 1: nothing to draw, as none of the post-survey papers (origin discovery) lacks an audit record\n"
    )


def test_a_pasted_draw_asks_for_its_second_readings_until_they_are_written(small_copy: Path, run_cli: Any) -> None:
    # Arrange: draw two papers of round 2 and paste the entry at the end of the backfill round's
    # audit_draws, just before the field search round
    drawn = run_cli("audit", "--round", "round-2", "--draw", "2", "--seed", "7", catch=False)
    assert drawn.exit_code == 0, drawn.output
    entry = drawn.stdout.split("\n\n")[-1]
    keys = yaml.safe_load(entry)[0]["keys"]
    path = small_copy / "protocol.yaml"
    text = path.read_text("utf-8")
    cut = text.index("  - id: field-search\n")  # the round after the backfill round
    before = text[:cut]
    assert before.rstrip("\n").splitlines()[-1].startswith("          ")  # the backfill's last draw's keys
    path.write_text(before + entry + text[cut:], "utf-8")
    line = before.count("\n") + 3  # the entry's keys
    n = len(PROTOCOL.round("backfill").audit_draws)
    # Act, Assert: validate asks for each second reading
    result = run_cli("validate")
    assert result.exit_code == 1
    column = 16
    expected = []
    for k, key in enumerate(keys):
        expected.append(
            f"protocol.yaml:{line}:{column}: rounds[2].audit_draws[{n}].keys[{k}]: '{key}' was drawn for a "
            f"second reading but audits/{key}.yaml is missing"
        )
        column += len(key) + 2
    assert [x for x in result.stdout.splitlines() if x.startswith("protocol.yaml")] == expected
    # Act, Assert: with the second readings written, the draw is listed and validate is clean
    for key in keys:
        paper = yaml.safe_load((small_copy / "papers" / f"{key}.yaml").read_text("utf-8"))
        reading = {f: paper[f] for f in ("category", "rl", "reward_type", "credit_unit", "topology")}
        audit = {
            "key": key,
            "first_reading": reading,
            "second_reading": {**reading, "strict_credit": bool(paper.get("strict_credit", False))},
            "verdict": "agree",
        }
        (small_copy / "audits" / f"{key}.yaml").write_text(yaml.safe_dump(audit, sort_keys=False), "utf-8")
    result = run_cli("validate")
    assert result.exit_code == 0, result.output
    again = run_cli("audit", "--round", "round-2", "--draw", "2", "--seed", "7", "--json", catch=False)
    assert not set(json.loads(again.stdout)["keys"]) & set(keys)  # drawn papers leave the pool
