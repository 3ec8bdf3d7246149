"""The Frictionless Data Package of the exports: valid as built, and it refuses what breaks it.

``frictionless validate`` (the reference validator, from the test extra) reads
site/docs/data/datapackage.json and the files it describes, as a user of the package would.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO

DATA = REPO / "site" / "docs" / "data"


def validate(folder: Path) -> tuple[int, dict[str, Any]]:
    tool = Path(sysconfig.get_path("scripts")) / "frictionless"
    assert tool.is_file(), f"frictionless is not installed beside {sys.executable}: pip install -e '.[test]'"
    done = subprocess.run(
        [str(tool), "validate", "--json", "datapackage.json"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    return done.returncode, json.loads(done.stdout)


def errors(report: dict[str, Any]) -> list[tuple[str, str, str | None, int | None]]:
    """(resource, error type, field, row) of every error in a frictionless report."""
    return [
        (task["name"], e["type"], e.get("fieldName"), e.get("rowNumber"))
        for task in report["tasks"]
        for e in task["errors"]
    ]


def _edit_cell(path: Path, row: int, column: str, value: str) -> None:
    """Set one cell of a CSV file (row 0 is the first data row), keeping the rest as written."""
    rows = list(csv.DictReader(io.StringIO(path.read_text("utf-8"))))
    rows[row][column] = value
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(out.getvalue(), "utf-8")


def test_the_built_package_is_valid() -> None:
    code, report = validate(DATA)
    assert errors(report) == []
    assert (code, report["valid"]) == (0, True)
    assert [t["name"] for t in report["tasks"]] == ["papers", "exclusions", "audits", "corpus"]


def test_the_package_takes_its_enums_keys_and_types_from_the_taxonomy() -> None:
    import yaml

    package = json.loads((DATA / "datapackage.json").read_text("utf-8"))
    taxonomy = yaml.safe_load((REPO / "taxonomy.yaml").read_text("utf-8"))
    tables = {r["name"]: r for r in package["resources"]}
    fields = {f["name"]: f for f in tables["papers"]["schema"]["fields"]}
    reward_ids = [v["id"] for v in taxonomy["fields"]["reward_type"]["values"]]
    assert fields["reward_type"]["constraints"]["enum"] == reward_ids
    assert fields["year"]["type"] == "integer"
    assert fields["added"]["type"] == "date"
    assert tables["papers"]["schema"]["primaryKey"] == ["key"]
    assert tables["exclusions"]["schema"]["primaryKey"] == ["record_id"]
    assert tables["audits"]["schema"]["foreignKeys"] == [
        {"fields": ["key"], "reference": {"resource": "papers", "fields": ["key"]}}
    ]
    # Every column of every CSV file is described, in order
    for name in ("papers", "exclusions", "audits"):
        header = (DATA / tables[name]["path"]).read_text("utf-8").splitlines()[0].split(",")
        assert [f["name"] for f in tables[name]["schema"]["fields"]] == header


@pytest.mark.parametrize(
    ("file", "row", "column", "value", "expected"),
    [
        ("papers.csv", 1, "reward_type", "bogus", ("papers", "constraint-error", "reward_type", 3)),
        ("papers.csv", 0, "orchestration_form", "Centralized", ("papers", "constraint-error", "orchestration_form", 2)),
        ("papers.csv", 2, "year", "20x5", ("papers", "type-error", "year", 4)),
        ("papers.csv", 0, "added", "2026-13-01", ("papers", "type-error", "added", 2)),
        ("excluded.csv", 0, "stage", "later", ("exclusions", "constraint-error", "stage", 2)),
        ("audits.csv", 0, "verdict", "maybe", ("audits", "constraint-error", "verdict", 2)),
        ("audits.csv", 0, "second_rl", "perhaps", ("audits", "constraint-error", "second_rl", 2)),
        ("audits.csv", 0, "strict_credit", "sometimes", ("audits", "type-error", "strict_credit", 2)),
        ("audits.csv", 0, "key", "no-such-paper", ("audits", "foreign-key", None, 2)),
    ],
)
def test_a_broken_cell_is_refused(
    tmp_path: Path, file: str, row: int, column: str, value: str, expected: tuple[str, str, str | None, int]
) -> None:
    # Arrange: a copy of the built package with one cell broken
    folder = tmp_path / "data"
    shutil.copytree(DATA, folder)
    _edit_cell(folder / file, row, column, value)
    # Act
    code, report = validate(folder)
    # Assert: exactly that cell is reported
    assert code != 0
    assert report["valid"] is False
    assert errors(report) == [expected]
