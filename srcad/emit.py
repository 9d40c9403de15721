"""Turning gast trees into Python source: the one place astor is used.

Contract: ``to_source(tree)`` returns deterministic source text for a gast
node, with the statements made by ``syntax.comment`` printed as ``# ...``
comments.  astor's deprecation warnings on Python 3.12+ never reach the user.

Example::

    >>> import gast
    >>> from srcad import syntax
    >>> to_source(syntax.assign("y", syntax.name("x")))
    'y = x\\n'
"""
from __future__ import annotations

import ast
import re
import warnings

import gast

from .syntax import COMMENT_CALL

_COMMENT_LINE = re.compile(r"^(\s*)" + COMMENT_CALL + r"\((.*)\)$", re.MULTILINE)


def to_source(tree) -> str:
    """Python source for gast node ``tree``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import astor
        python_tree = gast.gast_to_ast(tree)
        ast.fix_missing_locations(python_tree)
        text = astor.to_source(python_tree, pretty_source=''.join)
    return _COMMENT_LINE.sub(_comment, text)


def _comment(match) -> str:
    text = ast.literal_eval(match.group(2))
    return f"{match.group(1)}# {text}" if text else ""
