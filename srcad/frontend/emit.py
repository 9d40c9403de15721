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
        text = astor.to_source(to_python_ast(tree), pretty_source=''.join)
    return _COMMENT_LINE.sub(_comment, text)


def to_python_ast(node):
    """The ``ast`` tree for gast node ``node`` (Python 3.9+; what ``gast.gast_to_ast`` gives, several
    times faster: one class lookup and one constructor call per node)."""
    if node.__class__ is list:
        return [to_python_ast(item) for item in node]
    if not isinstance(node, gast.AST):
        return node
    name = node.__class__.__name__
    if name == "Name" and node.ctx.__class__ is gast.Param:   # a parameter
        return ast.arg(arg=node.id, annotation=to_python_ast(node.annotation), type_comment=node.type_comment)
    cls = _AST_CLASSES.get(name) or _AST_CLASSES.setdefault(name, getattr(ast, name))
    fields = node.__dict__
    return cls(**{field: to_python_ast(fields[field]) for field in cls._fields if field in fields})


_AST_CLASSES = {}


def _comment(match) -> str:
    text = ast.literal_eval(match.group(2))
    return f"{match.group(1)}# {text}" if text else ""
