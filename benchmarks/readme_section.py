"""Write the benchmark tables into the README, between two marker lines, for ``run.py --readme``.

Contract:
- ``replace_section(text, tables)`` returns ``text`` with the lines strictly
  between ``BEGIN`` and ``END`` replaced by ``tables``; the markers and
  everything outside them are kept byte for byte.  It raises ``ValueError``
  naming the missing marker when ``text`` lacks one, has it twice, or has
  them in the wrong order, and changes nothing then.
- ``write_readme(path, tables)`` does the same to a file in place.

Example::

    >>> replace_section(f"intro\\n{BEGIN}\\nold\\n{END}\\nrest\\n", "new").splitlines()[2]
    'new'
"""
from __future__ import annotations

from pathlib import Path

BEGIN = "<!-- benchmark tables: written by `python benchmarks/run.py --readme`; do not edit by hand -->"
END = "<!-- end of benchmark tables -->"


def replace_section(text: str, tables: str) -> str:
    """``text`` with the benchmark tables between the markers replaced by ``tables``."""
    for marker in (BEGIN, END):
        if text.count(marker) != 1:
            raise ValueError(f"the README must hold the line {marker!r} exactly once "
                             f"(found {text.count(marker)}); add it around the benchmark tables")
    head, rest = text.split(BEGIN)
    if END not in rest:
        raise ValueError(f"{END!r} must come after {BEGIN!r} in the README")
    _, tail = rest.split(END)
    return f"{head}{BEGIN}\n{tables.strip()}\n{END}{tail}"


def write_readme(path: Path, tables: str) -> None:
    """Replace the benchmark tables of the README at ``path`` in place (see ``replace_section``)."""
    path = Path(path)
    path.write_text(replace_section(path.read_text(encoding="utf-8"), tables), encoding="utf-8")
