"""The one error of the build pipeline, raised wherever a step finds it cannot go on.

It sits apart from :mod:`masrl.publish._build` so that the steps the pipeline calls (site pages,
What's new) can raise it without importing the pipeline that imports them.
"""

from __future__ import annotations

from masrl.base._problems import Problem


class BuildError(Exception):
    """The build cannot proceed; carries the problems to print."""

    def __init__(self, problems: list[Problem], files: int = 0, message: str = "") -> None:
        super().__init__(message or "\n".join(map(str, problems)))
        self.problems = problems
        self.files = files
        self.message = message
