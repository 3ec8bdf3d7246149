"""LaTeX in BibTeX values: decoding it to Unicode, and finding it where plain text belongs.

Records hold plain Unicode text (``Balunović``, not ``Balunovi\\'{c}``). BibTeX arriving through
``masrl add`` is decoded here with bibtexparser's LatexDecodingMiddleware; ``masrl validate`` uses
:func:`latex_in` to flag LaTeX left in a record's text.
"""

from __future__ import annotations

import functools
import re
from typing import Any

# A LaTeX command or accent escape: \v{c}, \'e, \ss, \textit, \&.
LATEX_COMMAND = re.compile(r"\\(?:[A-Za-z]+|[\'\"`^~=.&%$#_{}])")


def decode_latex(text: str) -> str:
    """BibTeX/LaTeX *text* as plain Unicode, decoded by bibtexparser's LatexDecodingMiddleware.

    ``Gaven{\\v{c}}iak`` becomes ``Gavenčiak``, ``Tom{\\'a}{\\v{s}}`` ``Tomáš``, ``\\ss`` ``ß``,
    ``--`` an en dash; math (``$\\alpha$``) is kept as written.
    """
    from bibtexparser import Library  # type: ignore[attr-defined]
    from bibtexparser.model import Entry, Field

    entry = Entry("misc", "x", [Field("v", text)])
    done = decoder().transform_entry(entry, Library())
    value = done.fields_dict["v"].value if isinstance(done, Entry) else text
    return clean(str(value))


@functools.cache
def decoder() -> Any:
    """bibtexparser's LaTeX decoder: braces dropped, math kept as written (built once: it is slow to set up)."""
    from bibtexparser.middlewares import LatexDecodingMiddleware

    return LatexDecodingMiddleware(keep_braced_groups=False, keep_math_mode=True)


def clean(decoded: str) -> str:
    """A decoded value with its white space collapsed (BibTeX values wrap over lines)."""
    return " ".join(decoded.split())


def latex_in(text: str) -> str | None:
    """The first LaTeX command in *text*, if any."""
    match = LATEX_COMMAND.search(text)
    return match.group() if match else None
