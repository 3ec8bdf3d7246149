"""Text as the services send it, made into facts: markup, entities, names, old-style arXiv ids.

* :func:`clean` strips markup (``<i>b</i><sup>2</sup>``, JATS ``<jats:italic>``) and unescapes
  entities, however many times they were escaped (``Big Data &amp;amp; Society``), in titles and
  venues; :func:`clean_url` unescapes a URL (``?a=1&amp;b=2``).
* :func:`last_first` writes a name as the records do, ``Last, First``, splitting a display name
  with nameparser, which knows particles (``Adrian Del Maestro`` -> ``Del Maestro, Adrian``, ``van
  der Putten``, ``de Oliveira Neves``) and suffixes (``Donald Hora Jr.`` -> ``Hora, Jr., Donald``,
  BibTeX's order). :func:`person` is what two spellings of one person have in common, so a change
  of split alone is never taken for a change of name.
* :func:`arxiv_id` reads an arXiv abstract URL or id, new style (``2501.00001v2``) or old
  (``solv-int/9901001v2``), into the id without its version.
"""

from __future__ import annotations

import html
import re
import unicodedata

# The inline markup titles carry (HTML, JATS, MathML); a bare "<" in a formula is left alone.
_TAG = re.compile(
    r"</?(?:i|b|u|em|strong|sup|sub|tt|span|sc|scp|small|br|p|div|math|(?:jats|mml):[\w-]+)(?:\s[^<>]*)?/?>", re.I
)
_ARXIV = re.compile(
    r"(?:arxiv\.org/(?:abs|pdf)/|arxiv:)?"
    r"(?P<id>\d{4}\.\d{4,5}|[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7})(?P<version>v\d+)?(?:\.pdf)?/?$",
    re.I,
)


def unescape(text: str) -> str:
    """*text* with entities decoded until none is left (``&amp;amp;`` -> ``&``), at most 3 rounds."""
    for _ in range(3):
        decoded = html.unescape(text)
        if decoded == text:
            break
        text = decoded
    return text


def clean(text: str | None) -> str:
    """*text* without markup or entities, on one line."""
    text = _TAG.sub("", str(text or ""))
    return " ".join(_TAG.sub("", unescape(text)).split())


def clean_url(url: str | None) -> str:
    """*url* with its entities decoded (``&amp;`` -> ``&``) and no surrounding space."""
    return unescape(str(url or "")).strip()


def arxiv_id(text: str | None) -> str | None:
    """The arXiv id (without version) in an abstract or PDF URL or a bare id; None if it is none."""
    match = _ARXIV.search(str(text or "").strip())
    if not match:
        return None
    return match.group("id")


# ---------------------------------------------------------------------------------------------
# Names


def _name_parser() -> type:
    from nameparser import HumanName

    return HumanName


def last_first(name: str) -> str:
    """*name* as ``Last, First`` (``Last, Jr., First`` with a suffix); a name already written with a
    comma, a single word and a team name stay as they are."""
    name = clean(name)
    if "," in name or len(name.split()) < 2:
        return name
    parsed = _name_parser()(name)
    last, suffix = str(parsed.last).strip(), str(parsed.suffix).strip()
    given = " ".join(p for p in (str(parsed.title), str(parsed.first), str(parsed.middle)) if p.strip())
    if not last or not given:
        return name
    return f"{last}, {suffix}, {given}" if suffix else f"{last}, {given}"


def from_parts(given: str | None, family: str | None, suffix: str | None = None, name: str | None = None) -> str:
    """A name from its parts as Crossref gives them (``given``, ``family``, ``suffix``, or ``name``)."""
    given, family, suffix = clean(given), clean(family), clean(suffix)
    if family:
        if suffix:
            return f"{family}, {suffix}, {given}" if given else f"{family}, {suffix}"
        return f"{family}, {given}" if given else family
    return clean(name) or given


def person(name: str) -> tuple[str, ...]:
    """What every spelling of one person's name shares, however it is split: the words of the
    name, accents and case folded, in sorted order (``Maestro, Adrian Del`` and ``Del Maestro,
    Adrian`` give the same)."""
    folded = unicodedata.normalize("NFKD", clean(name)).encode("ascii", "ignore").decode().lower()
    return tuple(sorted(w for w in re.split(r"[^a-z0-9]+", folded) if w))


def slug(title: str, limit: int = 60) -> str:
    """A file-name-safe id part from *title*: ASCII words joined by ``-``, accents folded, at most
    *limit* characters; empty when the title has no ASCII letter or digit."""
    folded = unicodedata.normalize("NFKD", clean(title)).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", "-", folded).strip("-")[:limit].strip("-")
