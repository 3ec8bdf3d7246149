"""`masrl validate` on bad input: every case asserts the exact report and exit code.

Each case writes one record into a small corpus (taxonomy only, plus a valid paper `x` when the
case is about an exclusion or an audit) and runs the command line.
"""

from __future__ import annotations

from typing import Any

import pytest

from conftest import AUDIT_TEXT, EXCLUSION_TEXT, PAPER_TEXT, Corpus, replace_line
from masrl.corpus._schema import next_year

P = PAPER_TEXT
NEXT = next_year()  # the upper bound moves with the calendar


def r(field: str, new: str | None, text: str = P) -> str:
    return replace_line(text, field, new)


CASES: list[tuple[str, str, str | bytes, int, list[str]]] = [
    # -- file level
    (
        "empty",
        "papers/x.yaml",
        "",
        1,
        ["papers/x.yaml:1:1: (record): file is empty; a record is a mapping of field: value lines"],
    ),
    (
        "only-comment",
        "papers/x.yaml",
        "# nothing here\n",
        1,
        ["papers/x.yaml:1:1: (record): file is empty; a record is a mapping of field: value lines"],
    ),
    (
        "top-list",
        "papers/x.yaml",
        "- a\n- b\n",
        1,
        ["papers/x.yaml:1:1: (record): top level must be a mapping of field: value lines, not a list"],
    ),
    (
        "top-scalar",
        "papers/x.yaml",
        "just text\n",
        1,
        ["papers/x.yaml:1:1: (record): top level must be a mapping of field: value lines, not a single value"],
    ),
    (
        "syntax",
        "papers/x.yaml",
        r("title", 'title: "unclosed'),
        1,
        ["papers/x.yaml:8:9: (record): YAML syntax error: while parsing a block mapping did not find expected key"],
    ),
    (
        "tab-indent",
        "papers/x.yaml",
        r("authors", "authors:\n\t- Doe, Jane").replace("  - Doe, Jane\n", ""),
        1,
        ["papers/x.yaml:5:1: (record): tab character found; indent YAML with spaces only"],
    ),
    (
        "bad-utf8",
        "papers/x.yaml",
        r("title", "title: caf\udcff").encode("utf-8", "surrogateescape"),
        1,
        ["papers/x.yaml:3:11: (record): file must be UTF-8: byte 0xff is not valid UTF-8"],
    ),
    (
        "nul",
        "papers/x.yaml",
        r("title", "title: a\x00b"),
        1,
        ["papers/x.yaml:1:1: (record): file contains a NUL byte; records are plain text"],
    ),
    (
        "python-tag",
        "papers/x.yaml",
        r("title", "title: !!python/object/apply:os.system [echo hi]"),
        1,
        [
            "papers/x.yaml:3:8: (record): YAML tag '!!python/object/apply:os.system' is not allowed in records; write plain values"
        ],
    ),
    (
        "custom-tag",
        "papers/x.yaml",
        r("title", "title: !shout hello"),
        1,
        ["papers/x.yaml:3:8: (record): YAML tag '!shout' is not allowed in records; write plain values"],
    ),
    (
        "alias",
        "papers/x.yaml",
        r("title", "title: &t A study").replace("affiliation: Somewhere University", "affiliation: *t"),
        1,
        ["papers/x.yaml:3:8: (record): anchors and aliases (&name, *name) are not allowed in records"],
    ),
    (
        "merge-key",
        "papers/x.yaml",
        r("bibtex" if False else "venue", "venue: arXiv\nbibtex:\n  <<: {journal: J}"),
        1,
        ["papers/x.yaml:11:3: (record): merge keys ('<<') are not allowed in records"],
    ),
    (
        "dup-key",
        "papers/x.yaml",
        P + "year: 2024\n",
        1,
        ["papers/x.yaml:24:1: (record): duplicate key 'year' (first defined at line 7); YAML would keep only the last"],
    ),
    (
        "two-docs",
        "papers/x.yaml",
        P + "---\nkey: y\n",
        1,
        ["papers/x.yaml:24:1: (record): file holds more than one YAML document ('---'); a record is one mapping"],
    ),
    (
        "deep",
        "papers/x.yaml",
        P + "notes: " + "[" * 20 + "]" * 20 + "\n",
        1,
        ["papers/x.yaml:24:24: (record): nesting is too deep (more than 16 levels)"],
    ),
    (
        "complex-key",
        "papers/x.yaml",
        P + "? [a, b]\n: c\n",
        1,
        ["papers/x.yaml:24:3: (record): mapping keys must be plain names"],
    ),
    # -- fields
    (
        "unknown-field",
        "papers/x.yaml",
        P + "titel: Another\n",
        1,
        [
            "papers/x.yaml:24:1: titel: unknown field (did you mean 'title'?); allowed fields are key, title, authors, et_al, affiliation, year, arxiv, doi, venue, url, more_urls, code, bibtex, category, rl, reward_type, credit_unit, topology, scenario, role, verified, evidence_kind, origin, added, round, rule, changes, strict_credit, subdecisions, summary, notes, exceptions"
        ],
    ),
    (
        "missing-summary",
        "papers/x.yaml",
        r("summary", None),
        1,
        ["papers/x.yaml:2:1: summary: summary is required: One sentence in our own words, at most 200 characters."],
    ),
    (
        "null-title",
        "papers/x.yaml",
        r("title", "title:"),
        1,
        ["papers/x.yaml:3:1: title: title must be text, not empty"],
    ),
    (
        "enum-typo",
        "papers/x.yaml",
        r("reward_type", "reward_type: hybird"),
        1,
        [
            "papers/x.yaml:13:1: reward_type: reward_type must be one of 'shared', 'individual', 'role', 'process', 'tool', 'debate', 'verifier', 'orchestration', 'hybrid' or 'NA', not 'hybird' (did you mean 'hybrid'?)"
        ],
    ),
    (
        "enum-case",
        "papers/x.yaml",
        r("reward_type", "reward_type: Shared"),
        1,
        [
            "papers/x.yaml:13:1: reward_type: reward_type must be one of 'shared', 'individual', 'role', 'process', 'tool', 'debate', 'verifier', 'orchestration', 'hybrid' or 'NA', not 'Shared' (did you mean 'shared'?)"
        ],
    ),
    (
        "enum-bool",
        "papers/x.yaml",
        r("rl", "rl: true"),
        1,
        [
            "papers/x.yaml:12:1: rl: rl must be one of 'yes', 'partial', 'sft' or 'no', not true (YAML reads bare true/false as booleans; write the value as listed)"
        ],
    ),
    (
        "enum-bool-false",
        "papers/x.yaml",
        r("rl", "rl: false"),
        1,
        [
            "papers/x.yaml:12:1: rl: rl must be one of 'yes', 'partial', 'sft' or 'no', not false (YAML reads bare true/false as booleans; write the value as listed)"
        ],
    ),
    (
        "enum-number",
        "papers/x.yaml",
        r("scenario", "scenario: 3"),
        1,
        [
            "papers/x.yaml:16:1: scenario: scenario must be one of 'coding', 'web', 'research', 'math', 'tool_use', 'debate' or 'general', not a number 3"
        ],
    ),
    (
        "year-text",
        "papers/x.yaml",
        r("year", "year: twenty"),
        1,
        ["papers/x.yaml:7:1: year: year must be a whole number, not text 'twenty'"],
    ),
    (
        "year-low",
        "papers/x.yaml",
        r("year", "year: 1949"),
        1,
        [f"papers/x.yaml:7:1: year: year must lie between 1950 and {NEXT}, not 1949"],
    ),
    (
        "year-high",
        "papers/x.yaml",
        r("year", "year: 2999"),
        1,
        [f"papers/x.yaml:7:1: year: year must lie between 1950 and {NEXT}, not 2999"],
    ),
    # the bounds themselves are inside
    (
        "year-lowest",
        "papers/x.yaml",
        r("year", "year: 1950").replace('arxiv: "2501.00001"\n', "").replace("venue: arXiv", "venue: Tech Report"),
        0,
        [],
    ),
    ("year-next", "papers/x.yaml", r("year", f"year: {NEXT}"), 0, []),
    (
        "year-after-next",
        "papers/x.yaml",
        r("year", f"year: {NEXT + 1}"),
        1,
        [f"papers/x.yaml:7:1: year: year must lie between 1950 and {NEXT}, not {NEXT + 1}"],
    ),
    # two authors may share a name; two links may not
    (
        "authors-same-name",
        "papers/x.yaml",
        r("authors", "authors:\n  - Wang, Wei\n  - Wang, Wei").replace("  - Doe, Jane\n", ""),
        0,
        [],
    ),
    (
        "more-urls-bad-item",
        "papers/x.yaml",
        r("url", "url: https://arxiv.org/abs/2501.00001\nmore_urls:\n  - https://example.org/a\n  - not a link"),
        1,
        ["papers/x.yaml:13:5: more_urls[1]: more_urls must be an http(s) URL with no spaces, not 'not a link'"],
    ),
    (
        "more-urls-text",
        "papers/x.yaml",
        r("url", "url: https://arxiv.org/abs/2501.00001\nmore_urls: https://example.org/a"),
        1,
        ["papers/x.yaml:11:1: more_urls: more_urls must be a list, not text 'https://example.org/a'"],
    ),
    # the record's origin and the date it was added
    (
        "origin-missing",
        "papers/x.yaml",
        r("origin", None),
        1,
        [
            "papers/x.yaml:2:1: origin: origin is required: Where the record came from. The survey's own records form its snapshot (cutoff 2026-05-04), whose figures stay reproducible however the corpus grows."
        ],
    ),
    (
        "added-future",
        "papers/x.yaml",
        r("added", 'added: "2999-01-01"'),
        1,
        ["papers/x.yaml:23:1: added: added must not be in the future, not 2999-01-01"],
    ),
    (
        "arxiv-float",
        "papers/x.yaml",
        r("arxiv", "arxiv: 2501.00010"),
        1,
        [
            'papers/x.yaml:8:1: arxiv: arxiv must be text, not a number 2501.0001; quote it, e.g. arxiv: "2508.04652", or YAML reads it as a number and drops zeros'
        ],
    ),
    (
        "arxiv-bad",
        "papers/x.yaml",
        r("arxiv", 'arxiv: "2513.1"'),
        1,
        [
            'papers/x.yaml:8:1: arxiv: arxiv must be an arXiv id such as "2508.04652" or "cs/0112017", quoted, not \'2513.1\''
        ],
    ),
    (
        "doi-bad",
        "papers/x.yaml",
        r("venue", "venue: arXiv\ndoi: doi.org/10.1/x"),
        1,
        ["papers/x.yaml:10:1: doi: doi must be a DOI such as '10.1145/3605764.3623985', not 'doi.org/10.1/x'"],
    ),
    (
        "url-ftp",
        "papers/x.yaml",
        r("url", "url: ftp://example.org/paper.pdf"),
        1,
        ["papers/x.yaml:10:1: url: url must be an http(s) URL with no spaces, not 'ftp://example.org/paper.pdf'"],
    ),
    (
        "url-space",
        "papers/x.yaml",
        r("url", 'url: "https://example.org/a b"'),
        1,
        ["papers/x.yaml:10:1: url: url must be an http(s) URL with no spaces, not 'https://example.org/a b'"],
    ),
    # a wrong value is shown whole up to 60 characters, quotes included, and cut short beyond
    (
        "url-space-60",
        "papers/x.yaml",
        r("url", "url: https://example.org/a b" + "c" * 35),
        1,
        [
            f"papers/x.yaml:10:1: url: url must be an http(s) URL with no spaces, not 'https://example.org/a b{'c' * 35}'"
        ],
    ),
    (
        "url-space-61",
        "papers/x.yaml",
        r("url", "url: https://example.org/a b" + "c" * 35 + "d"),
        1,
        [
            f"papers/x.yaml:10:1: url: url must be an http(s) URL with no spaces, not 'https://example.org/a b{'c' * 33}..."
        ],
    ),
    (
        "url-arxiv-mismatch",
        "papers/x.yaml",
        r("url", "url: https://arxiv.org/abs/2501.00002"),
        1,
        ["papers/x.yaml:10:1: url: url points to arXiv 2501.00002 but arxiv is 2501.00001"],
    ),
    (
        "authors-empty",
        "papers/x.yaml",
        r("authors", "authors: []").replace("  - Doe, Jane\n", ""),
        1,
        ["papers/x.yaml:4:1: authors: authors must list at least one item"],
    ),
    (
        "authors-scalar",
        "papers/x.yaml",
        r("authors", "authors: Doe, Jane").replace("  - Doe, Jane\n", ""),
        1,
        ["papers/x.yaml:4:1: authors: authors must be a list, not text 'Doe, Jane'"],
    ),
    (
        "more-urls-dup",
        "papers/x.yaml",
        r(
            "url",
            "url: https://arxiv.org/abs/2501.00001\nmore_urls:\n  - https://example.org/a\n  - https://example.org/a",
        ),
        1,
        ["papers/x.yaml:13:5: more_urls[1]: more_urls must not repeat 'https://example.org/a'"],
    ),
    (
        "summary-long",
        "papers/x.yaml",
        r("summary", "summary: " + "Long " * 40 + "text."),
        1,
        ["papers/x.yaml:21:1: summary: summary must be at most 200 characters, not 205"],
    ),
    (
        "summary-no-period",
        "papers/x.yaml",
        r("summary", "summary: Trains a team"),
        1,
        ["papers/x.yaml:21:1: summary: summary must be one sentence ending with '.'"],
    ),
    (
        "summary-spaces",
        "papers/x.yaml",
        r("summary", 'summary: " Trains a team."'),
        1,
        ["papers/x.yaml:21:1: summary: summary must not start or end with spaces"],
    ),
    (
        "title-multiline",
        "papers/x.yaml",
        r("title", 'title: "Line one\\nline two"'),
        1,
        ["papers/x.yaml:3:1: title: title must be a single line"],
    ),
    (
        "title-number",
        "papers/x.yaml",
        r("title", "title: 42"),
        1,
        ["papers/x.yaml:3:1: title: title must be text, not a number 42"],
    ),
    (
        "summary-trailing-space",
        "papers/x.yaml",
        r("summary", 'summary: "Trains a team. "'),
        1,
        ["papers/x.yaml:21:1: summary: summary must not start or end with spaces"],
    ),
    (
        "bibtex-list",
        "papers/x.yaml",
        P + "bibtex: [journal]\n",
        1,
        ["papers/x.yaml:24:1: bibtex: bibtex must be a mapping of field: value lines, not a list"],
    ),
    (
        "key-filename",
        "papers/x.yaml",
        r("key", "key: y"),
        1,
        ["papers/x.yaml:2:1: key: key must equal the file name: rename the file to y.yaml or set key: x"],
    ),
    (
        "key-pattern",
        "papers/x.yaml",
        r("key", "key: My_Key"),
        1,
        [
            "papers/x.yaml:2:1: key: key must be lowercase letters and digits in words joined by '-', e.g. 'm-grpo', not 'My_Key'"
        ],
    ),
    (
        "strict-na",
        "papers/x.yaml",
        r("credit_unit", "credit_unit: NA\nstrict_credit: true"),
        1,
        ["papers/x.yaml:15:1: strict_credit: strict_credit must be false when credit_unit is 'NA'"],
    ),
    (
        "strict-text",
        "papers/x.yaml",
        r("credit_unit", 'credit_unit: agent\nstrict_credit: "yes"'),
        1,
        ["papers/x.yaml:15:1: strict_credit: strict_credit must be true or false, not text 'yes'"],
    ),
    (
        "sub-bad-key",
        "papers/x.yaml",
        r("subdecisions", "subdecisions:\n  O6:\n    code: learned\n    basis: abstract\n    evidence: Learns it."),
        1,
        ["papers/x.yaml:21:3: subdecisions.O6: subdecisions keys must be 'O1', 'O2', 'O3', 'O4' or 'O5', not 'O6'"],
    ),
    (
        "sub-bad-code",
        "papers/x.yaml",
        r("subdecisions", "subdecisions:\n  O1:\n    code: trained\n    basis: abstract\n    evidence: Learns it."),
        1,
        ["papers/x.yaml:22:5: subdecisions.O1.code: code must be one of 'learned' or 'designed', not 'trained'"],
    ),
    (
        "sub-no-evidence",
        "papers/x.yaml",
        r("subdecisions", "subdecisions:\n  O1:\n    code: learned\n    basis: abstract"),
        1,
        [
            "papers/x.yaml:21:3: subdecisions.O1.evidence: evidence is required: One sentence, in our own words, saying what in the source supports the code (at most 200 characters)."
        ],
    ),
    (
        "sub-missing",
        "papers/x.yaml",
        r("subdecisions", None),
        1,
        [
            "papers/x.yaml:11:1: category: entries of category 'rl_method' must code subdecisions (O1-O5); write 'subdecisions: {}' when none applies"
        ],
    ),
    (
        "exception-unknown",
        "papers/x.yaml",
        P + "exceptions:\n  no_such_rule: because\n",
        1,
        [
            "papers/x.yaml:25:3: exceptions.no_such_rule: exceptions keys must be 'industry_is_case', 'no_rl_no_reward', 'no_rl_no_credit', 'no_team_for_benchmarks_and_surveys', 'year_not_before_arxiv' or 'learned_needs_rl', not 'no_such_rule'"
        ],
    ),
    (
        "exception-empty-reason",
        "papers/x.yaml",
        P + "exceptions:\n  industry_is_case: ''\n",
        1,
        ["papers/x.yaml:25:3: exceptions.industry_is_case: exceptions.industry_is_case must not be empty"],
    ),
    (
        "exception-reason-list",
        "papers/x.yaml",
        P + "exceptions:\n  industry_is_case: [a, b]\n",
        1,
        [
            "papers/x.yaml:25:3: exceptions.industry_is_case: exceptions.industry_is_case must be text, not a list ['a', 'b']"
        ],
    ),
    # every key of a keyed field is checked, after a wrong one too
    (
        "exception-unknown-then-empty",
        "papers/x.yaml",
        P + "exceptions:\n  no_such_rule: because\n  industry_is_case: ''\n",
        1,
        [
            "papers/x.yaml:25:3: exceptions.no_such_rule: exceptions keys must be 'industry_is_case', 'no_rl_no_reward', 'no_rl_no_credit', 'no_team_for_benchmarks_and_surveys', 'year_not_before_arxiv' or 'learned_needs_rl', not 'no_such_rule'",
            "papers/x.yaml:26:3: exceptions.industry_is_case: exceptions.industry_is_case must not be empty",
        ],
    ),
    (
        "sub-list",
        "papers/x.yaml",
        r("subdecisions", "subdecisions: [O1]"),
        1,
        ["papers/x.yaml:20:1: subdecisions: subdecisions must be a mapping, not a list ['O1']"],
    ),
    (
        "sub-codes-without-mapping",
        "papers/x.yaml",
        r("subdecisions", "subdecisions:\n  O1: learned\n  O2: designed"),
        1,
        [
            "papers/x.yaml:21:3: subdecisions.O1: subdecisions.O1 must be a mapping with code, basis, evidence",
            "papers/x.yaml:22:3: subdecisions.O2: subdecisions.O2 must be a mapping with code, basis, evidence",
        ],
    ),
    # a sentence may end with any of . ! ?
    (
        "summary-exclamation",
        "papers/x.yaml",
        r("summary", "summary: Trains a team of agents on a shared reward!"),
        0,
        [],
    ),
    ("summary-question", "papers/x.yaml", r("summary", "summary: Can a team of agents share one reward?"), 0, []),
    (
        "exception-unused",
        "papers/x.yaml",
        P + "exceptions:\n  industry_is_case: because it is special\n",
        0,
        [
            "papers/x.yaml:25:3: exceptions.industry_is_case: warning: exception for 'industry_is_case' is not needed: the entry follows that convention"
        ],
    ),
    (
        "warn-industry",
        "papers/x.yaml",
        r("category", "category: industry"),
        0,
        [
            "papers/x.yaml:17:1: role: warning: role is 'core' for category 'industry'; industry entries are 'case' and only they are [industry_is_case; if intended, explain it under exceptions: industry_is_case]"
        ],
    ),
    (
        "warn-learned-no-rl",
        "papers/x.yaml",
        r("rl", 'rl: "no"')
        .replace(
            "subdecisions: {}", "subdecisions:\n  O2:\n    code: learned\n    basis: abstract\n    evidence: Learns it."
        )
        .replace("reward_type: shared", "reward_type: NA")
        .replace("credit_unit: agent", "credit_unit: NA"),
        0,
        [
            "papers/x.yaml:22:5: subdecisions.O2.code: warning: O2 is coded 'learned' but rl is 'no' [learned_needs_rl; if intended, explain it under exceptions: learned_needs_rl]"
        ],
    ),
    (
        "warn-latex-author",
        "papers/x.yaml",
        P.replace("  - Doe, Jane", "  - Balunovi\\'{c}, Mislav"),
        0,
        [
            "papers/x.yaml:5:5: authors.0: warning: text must be plain Unicode, not LaTeX (found '\\''); write 'Balunović, Mislav'"
        ],
    ),
    (
        "warn-latex-title",
        "papers/x.yaml",
        r("title", "title: Gaven{\\v{c}}iak and the {\\textsc{LLM}} team"),
        0,
        [
            "papers/x.yaml:3:1: title: warning: text must be plain Unicode, not LaTeX (found '\\v'); write 'Gavenčiak and the LLM team'"
        ],
    ),
    # -- exclusions and audits
    (
        "excl-date",
        "exclusions/E001.yaml",
        replace_line(EXCLUSION_TEXT, "date_screened", 'date_screened: "2026-02-30"'),
        1,
        ["exclusions/E001.yaml:8:1: date_screened: date_screened must be a date written YYYY-MM-DD, not '2026-02-30'"],
    ),
    (
        "excl-future",
        "exclusions/E001.yaml",
        replace_line(EXCLUSION_TEXT, "date_screened", 'date_screened: "2999-01-01"'),
        1,
        ["exclusions/E001.yaml:8:1: date_screened: date_screened must not be in the future, not 2999-01-01"],
    ),
    (
        "excl-reason",
        "exclusions/E001.yaml",
        replace_line(EXCLUSION_TEXT, "reasons", "reasons:\n  - no_RL").replace("  - no_rl\n", ""),
        1,
        [
            "exclusions/E001.yaml:11:5: reasons[0]: reasons must be one of 'no_rl', 'single_agent', 'no_mas_mechanism', 'out_of_scope', 'background_only', 'superseded', 'duplicate', 'insufficient_detail' or 'no_trace_instrumentation', not 'no_RL' (did you mean 'no_rl'?)"
        ],
    ),
    (
        "excl-id",
        "exclusions/E001.yaml",
        replace_line(EXCLUSION_TEXT, "id", "id: X1"),
        1,
        ["exclusions/E001.yaml:2:1: id: id must be 'E' followed by at least three digits, e.g. 'E033', not 'X1'"],
    ),
    (
        "excl-same-as-paper",
        "exclusions/E001.yaml",
        replace_line(EXCLUSION_TEXT, "identifier", "identifier: arXiv:2501.00001"),
        1,
        [
            "exclusions/E001.yaml:6:1: identifier: arXiv 2501.00001 is already used by paper 'x' (a paper cannot be both retained and excluded)"
        ],
    ),
    (
        "audit-no-paper",
        "audits/x.yaml",
        replace_line(AUDIT_TEXT, "key", "key: zz"),
        1,
        [
            "audits/x.yaml:2:1: key: key 'zz' names no paper in papers/",
            "audits/x.yaml:2:1: key: key must equal the file name: rename the file to zz.yaml or set key: x",
        ],
    ),
    (
        "audit-verdict",
        "audits/x.yaml",
        AUDIT_TEXT.replace("verdict: agree", "verdict: disagree_credit"),
        1,
        ["audits/x.yaml:16:1: verdict: verdict 'disagree_credit' does not match the readings; it must be 'agree'"],
    ),
    (
        "audit-stale",
        "audits/x.yaml",
        AUDIT_TEXT.replace(
            "  reward_type: shared\n  credit_unit: agent\n  topology: centralized\nsecond",
            "  reward_type: hybrid\n  credit_unit: agent\n  topology: centralized\nsecond",
        ),
        1,
        [
            "audits/x.yaml:6:3: first_reading.reward_type: warning: the audited first reading 'hybrid' differs from the paper's current 'shared'; re-audit the row or record why the tag changed",
            "audits/x.yaml:16:1: verdict: verdict 'agree' contradicts the readings, which differ on reward_type",
        ],
    ),
    (
        # the paper took the second reading to settle a recorded disagreement: no warning
        "audit-settled",
        "audits/x.yaml",
        AUDIT_TEXT.replace(
            "  reward_type: shared\n  credit_unit: agent\n  topology: centralized\nsecond",
            "  reward_type: hybrid\n  credit_unit: agent\n  topology: centralized\nsecond",
        ).replace("verdict: agree", "verdict: disagree_reward\nnote: Settled for the second reading."),
        0,
        [],
    ),
    (
        # ... or for a third value the audit's note argues for: the field was in dispute, no warning
        "audit-settled-third-value",
        "audits/x.yaml",
        AUDIT_TEXT.replace(
            "  reward_type: shared\n  credit_unit: agent\n  topology: centralized\nsecond",
            "  reward_type: hybrid\n  credit_unit: agent\n  topology: centralized\nsecond",
        )
        .replace(
            "  reward_type: shared\n  credit_unit: agent\n  topology: centralized\n  strict",
            "  reward_type: individual\n  credit_unit: agent\n  topology: centralized\n  strict",
        )
        .replace("verdict: agree", "verdict: disagree_reward\nnote: Neither reading, the corpus codes this shared."),
        0,
        [],
    ),
    (
        # a field both readers agreed on that moved since is drift, even beside a disagreement
        "audit-drift-beside-a-disagreement",
        "audits/x.yaml",
        AUDIT_TEXT.replace(
            "  reward_type: shared\n  credit_unit: agent\n  topology: centralized\nsecond",
            "  reward_type: hybrid\n  credit_unit: agent\n  topology: swarm\nsecond",
        )
        .replace("  topology: centralized\n  strict", "  topology: swarm\n  strict")
        .replace("verdict: agree", "verdict: disagree_reward\nnote: Settled for the second reading."),
        0,
        [
            "audits/x.yaml:8:3: first_reading.topology: warning: the audited first reading 'swarm' differs from the paper's current 'centralized'; re-audit the row or record why the tag changed",
        ],
    ),
]


@pytest.mark.parametrize(("name", "rel", "content", "exit_code", "expected"), CASES, ids=[c[0] for c in CASES])
def test_bad_input(
    corpus: Corpus, run_cli: Any, name: str, rel: str, content: str | bytes, exit_code: int, expected: list[str]
) -> None:
    # Arrange
    if not rel.startswith("papers/"):
        corpus.write("papers/x.yaml", PAPER_TEXT)
    corpus.write(rel, content)
    # Act
    result = run_cli("validate")
    # Assert
    assert result.stdout.splitlines() == expected
    assert result.exit_code == exit_code
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception


def test_table_has_thirty_distinct_cases() -> None:
    assert len({c[0] for c in CASES}) == len(CASES) >= 30


# ---------------------------------------------------------------------------------------------
# What a link identifies


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        # an arXiv link is the arXiv id, and the URL too
        ("https://arxiv.org/abs/2501.00001", ["arXiv 2501.00001", "URL arxiv.org/abs/2501.00001"]),
        # host case, www and a trailing slash do not make another work
        ("https://WWW.example.org/paper/", ["URL example.org/paper"]),
        # a fragment points into the same work ...
        ("https://example.org/paper#abstract", ["URL example.org/paper"]),
        # ... except a page of a PDF, which names one chapter of a proceedings volume
        ("http://example.org/proceedings.pdf#page=163", ["URL example.org/proceedings.pdf#page=163"]),
        ("http://example.org/proceedings.pdf#page=215", ["URL example.org/proceedings.pdf#page=215"]),
        # a query string is kept
        ("https://openreview.net/forum?id=abc", ["URL openreview.net/forum?id=abc"]),
    ],
)
def test_what_a_link_identifies(url: str, expected: list[str]) -> None:
    from masrl.corpus._checks import identifiers

    assert identifiers(url) == expected
