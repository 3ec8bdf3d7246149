"""The weekly discovery run (``.github/workflows/discover.yml``): search, refresh, and a pull request body.

``python -m masrl.weekly --body FILE`` runs, in the corpus of the working directory:

1. ``masrl discover --markdown`` (arXiv and OpenAlex) since the last run, the newest ``found``
   date in ``screening/`` (the protocol's last closed round before any run), queueing each new
   candidate in ``screening/``;
2. ``masrl refresh --write``, applying the fact changes it finds to ``papers/``;
3. ``masrl refresh --stale 6 --unchecked-days 90 --list``: the records that, after that refresh,
   still cite arXiv or a submission more than :data:`STALE_MONTHS` months after they first
   appeared and that no one compared with the proceedings in the last :data:`RECHECK_DAYS` days
   (``venue_checks.csv``), for a person to look for where no source indexes them yet;
4. writes the pull request's body to FILE: the ranked table, refresh's changes and notes, the
   records still on arXiv, and any failure with what the run still gathered; and, when
   ``GITHUB_OUTPUT`` names a file, the
   outputs ``changed`` (``true`` when anything was queued or changed), ``title`` ("Candidates to
   screen, week of ...") and ``status`` (``ok`` or ``failed``).

The commands run in this process, as a user runs them, so a service that stays down ends one step
without losing what the other gathered. The exit status is 0 when the body was written, whatever
the services did (the workflow opens the pull request first and fails afterwards on ``status``).
It runs the command line, so it sits with the commands, above the living corpus's wing.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import io
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import click

STALE_MONTHS = 6  # a preprint this old is often published already: list it for a person to check
RECHECK_DAYS = 90  # a record checked in the proceedings this recently is not listed again


@dataclass
class Step:
    """What one command printed and how it ended."""

    stdout: str
    stderr: str
    code: int


def run(args: list[str]) -> Step:
    """Run ``masrl ARGS`` in this process; returns its output and exit code."""
    from masrl.cli import cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            cli.main(args, prog_name="masrl", standalone_mode=False)
            code = 0
        except click.exceptions.Exit as exc:
            code = exc.exit_code
        except click.ClickException as exc:
            exc.show()
            code = exc.exit_code
        except click.exceptions.Abort:
            code = 1
    return Step(out.getvalue(), err.getvalue(), code)


def last_run(root: Path) -> str | None:
    """The newest ``found`` date of the screening queue, or None for an empty queue."""
    from masrl.living._queue import read_queue

    entries, _ = read_queue(root)
    dates = [str(e.data.get("found")) for e in entries if e.data.get("found")]
    return max(dates) if dates else None


def _queue_files(root: Path) -> set[str]:
    folder = root / "screening"
    return {p.name for p in folder.glob("*.yaml")} if folder.is_dir() else set()


def _errors(step: Step) -> list[str]:
    return [line.removeprefix("Error: ") for line in step.stderr.splitlines() if line.startswith("Error: ")]


def body_text(week: str, discover: Step, refresh: Step, new_files: int, stale: Step | None = None) -> str:
    """The pull request's body."""
    lines = [f"## Candidates to screen, week of {week}", ""]
    if discover.stdout.strip():
        lines += [discover.stdout.rstrip(), ""]
    lines.append(f"{new_files} new candidate files in `screening/`; decide each with `masrl screen`.")
    changes = refresh.stdout.rstrip()
    notes = [line for line in refresh.stderr.splitlines() if not line.startswith("Error: ")]
    lines += ["", "### Facts that changed (`masrl refresh --write`)", ""]
    lines += ["```", changes, "```"] if changes else ["No record's facts changed."]
    if notes:
        lines += ["", "<details><summary>refresh notes</summary>", "", "```", *notes, "```", "", "</details>"]
    if stale is not None:
        listed = stale.stdout.splitlines()
        lines += [
            "",
            f"### Still on arXiv after {STALE_MONTHS} months "
            f"(`masrl refresh --stale {STALE_MONTHS} --unchecked-days {RECHECK_DAYS}`)",
            "",
        ]
        if listed:
            lines += [
                f"{len(listed)} records still cite arXiv or a submission, though this run rechecked them, and no one "
                f"compared them with the proceedings in the last {RECHECK_DAYS} days; look for each in the proceedings "
                "(ACL Anthology, PMLR, OpenReview, AAAI, IJCAI) and the journals, and move its venue with a `changes` "
                "entry naming the source, or add a row to venue_checks.csv saying what you compared it with.",
                "",
                f"<details><summary>{len(listed)} records</summary>",
                "",
                "```",
                *listed,
                "```",
                "",
                "</details>",
            ]
        elif stale.code == 0:
            lines.append(
                f"No record still cites arXiv or a submission {STALE_MONTHS} months after it first appeared "
                f"without a check in the last {RECHECK_DAYS} days."
            )
    failures = [f"`masrl discover`: {e}" for e in _errors(discover)] + [
        f"`masrl refresh`: {e}" for e in _errors(refresh) + (_errors(stale) if stale else [])
    ]
    if failures:
        lines += ["", "### This run did not finish", ""]
        lines += [f"- {f}" for f in failures]
        lines += ["", "What is above was gathered before; the next run goes on from it."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m masrl.weekly", description=__doc__.split("\n")[0])
    parser.add_argument("--body", type=Path, required=True, help="where to write the pull request's body")
    parser.add_argument("--today", default=None, help="the run's date, YYYY-MM-DD (default: today)")
    args = parser.parse_args(argv)
    root = Path.cwd()
    today = args.today or dt.date.today().isoformat()
    week = (dt.date.fromisoformat(today) - dt.timedelta(days=dt.date.fromisoformat(today).weekday())).isoformat()
    since = last_run(root)
    if since is not None:
        since = min(since, today)
    before = _queue_files(root)
    discover_args = ["discover", "--markdown", "--until", today, *(["--since", since] if since else [])]
    discover = run(discover_args)
    new_files = len(_queue_files(root) - before)
    refresh = run(["refresh", "--write"])
    stale = run(
        ["refresh", "--stale", str(STALE_MONTHS), "--unchecked-days", str(RECHECK_DAYS), "--list", "--today", today]
    )
    changed = new_files > 0 or bool(refresh.stdout.strip())
    failed = discover.code != 0 or refresh.code != 0 or stale.code != 0
    args.body.write_text(body_text(week, discover, refresh, new_files, stale), "utf-8")
    outputs = os.environ.get("GITHUB_OUTPUT")
    if outputs:
        with open(outputs, "a", encoding="utf-8") as f:
            f.write(f"changed={'true' if changed else 'false'}\n")
            f.write(f"title=Candidates to screen, week of {week}\n")
            f.write(f"status={'failed' if failed else 'ok'}\n")
    sys.stderr.write(discover.stderr + refresh.stderr + stale.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
