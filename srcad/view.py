"""``srcad.show(f)``: the derivative beside the function, in a terminal, in Jupyter, or as an HTML page.

Contract:
- ``show(func, wrt, mode, rules=True, optimize=True)`` returns a ``Shown``.
  ``str()`` of it is the generated module (with ``# rule:`` lines when
  ``rules``, see ``srcad/rule_comments.py``); its ``repr`` is the same text,
  highlighted when stdout is a terminal that wants colour
  (``srcad/display.py``), so a REPL prints the code.
- In Jupyter, ``_repr_html_`` renders the user's function on the left and
  the derivative on the right.  Each user line (``data-line``: its line
  number in the file) is linked to the blocks generated from it (a block is
  the code under a ``# <line>`` comment, ``data-lines``: the user lines with
  that text); hovering or clicking either side highlights both.
  ``html_page()`` is the same view as a self-contained page: inline CSS and
  script, no network resource.  Pygments colours the code when installed.
- A block comment is matched to user lines by text (a line written twice
  links both places); a block of an inlined callee (``callee: text``) links
  no user line.

Example::

    >>> import numpy as np, srcad
    >>> def f(x):
    ...     return np.sum(np.tanh(x))
    >>> srcad.show(f)                                    # doctest: +SKIP
    >>> open("f.html", "w").write(srcad.show(f).html_page())   # doctest: +SKIP
"""
from __future__ import annotations

import html
import re
import sys
from typing import Any, Callable, Dict, List, Sequence, Tuple, Union

from . import api
from .display import highlight_python, wants_color
from .frontend.source import parse_function
from .rule_comments import annotated_source

Wrt = Union[int, str, Sequence[Union[int, str]]]
_COMMENT = re.compile(r"^(\s*)# (.*)$")
_STYLE = """
.srcad-view { display: flex; gap: 1em; font-family: monospace; font-size: 13px; }
.srcad-view .side { flex: 1; overflow-x: auto; }
.srcad-view .side h4 { font-family: sans-serif; margin: 0 0 .3em 0; }
.srcad-view pre, .srcad-view .line { margin: 0; white-space: pre; }
.srcad-view .line, .srcad-view .block { border-left: 3px solid transparent; cursor: pointer; }
.srcad-view .linked:hover, .srcad-view .selected { background: #fff3b0; border-left-color: #e0a800; }
.srcad-view .rule { color: #6a737d; font-style: italic; }
.srcad-view .number { color: #999; display: inline-block; width: 3em; user-select: none; }
"""
_SCRIPT = """
(function () {
  var views = document.querySelectorAll('.srcad-view:not([data-ready])');
  views.forEach(function (view) {
    view.setAttribute('data-ready', '1');
    function select(lines) {
      view.querySelectorAll('.selected').forEach(function (e) { e.classList.remove('selected'); });
      lines.forEach(function (n) {
        view.querySelectorAll('.line[data-line="' + n + '"]').forEach(function (e) { e.classList.add('selected'); });
        view.querySelectorAll('.block').forEach(function (b) {
          if ((' ' + b.getAttribute('data-lines') + ' ').indexOf(' ' + n + ' ') >= 0) { b.classList.add('selected'); }
        });
      });
    }
    view.querySelectorAll('.line.linked').forEach(function (e) {
      var pick = function () { select([e.getAttribute('data-line')]); };
      e.addEventListener('mouseenter', pick); e.addEventListener('click', pick);
    });
    view.querySelectorAll('.block.linked').forEach(function (b) {
      var pick = function () { select(b.getAttribute('data-lines').split(' ')); };
      b.addEventListener('mouseenter', pick); b.addEventListener('click', pick);
    });
  });
})();
"""


class Shown:
    """A function's derivative, to read: text in a terminal, side by side in Jupyter or a page."""

    def __init__(self, source: str, user_lines: List[str], first_line: int, title: str) -> None:
        self.source = source
        self.user_lines = user_lines
        self.first_line = first_line
        self.title = title

    def __str__(self) -> str:
        return self.source

    def __repr__(self) -> str:
        return highlight_python(self.source) if wants_color("auto", sys.stdout) else self.source

    def blocks(self) -> List[Tuple[List[int], List[str]]]:
        """The generated module cut into blocks: (user line numbers it comes from, its lines).

        Example::

            >>> shown.blocks()[0]   # doctest: +SKIP
            ([], ['# srcad 0.1.0: reverse-mode derivative of f (f.py:1) with respect to x', ...])
        """
        by_text: Dict[str, List[int]] = {}
        for offset, text in enumerate(self.user_lines):
            if text.strip():
                by_text.setdefault(text.strip(), []).append(self.first_line + offset)
        result: List[Tuple[List[int], List[str]]] = [([], [])]
        for line in self.source.splitlines():
            match = _COMMENT.match(line)
            if match and match.group(2) in by_text and match.group(1):   # a block comment, inside the def
                result.append((by_text[match.group(2)], []))
            elif line.startswith("def ") and result[-1][1]:
                result.append(([], []))
            result[-1][1].append(line)
        return [block for block in result if block[1]]

    def _repr_html_(self) -> str:
        return f"<style>{_STYLE}{_pygments_css()}</style>{self.html_fragment()}<script>{_SCRIPT}</script>"

    def html_fragment(self) -> str:
        """The side-by-side view as one ``<div class="srcad-view">`` (needs the page's style and script)."""
        blocks = self.blocks()
        linked = {number for numbers, _ in blocks for number in numbers}
        left = []
        for offset, text in enumerate(self.user_lines):
            number = self.first_line + offset
            kind = "line linked" if number in linked else "line"
            left.append(f'<div class="{kind}" data-line="{number}"><span class="number">{number}</span>'
                        f'{_code(text)}</div>')
        right = []
        for numbers, lines in blocks:
            kind = "block linked" if numbers else "block"
            body = "\n".join(_code(line) for line in lines)
            right.append(f'<div class="{kind}" data-lines="{" ".join(map(str, numbers))}"><pre>{body}</pre></div>')
        return (f'<div class="srcad-view"><div class="side user"><h4>{html.escape(self.title)}</h4>'
                + "".join(left) + '</div><div class="side generated"><h4>derivative</h4>'
                + "".join(right) + "</div></div>")

    def html_page(self) -> str:
        """A self-contained HTML page of the view (no network resource).

        Example::

            >>> page = srcad.show(f).html_page()   # doctest: +SKIP
            >>> page.startswith("<!DOCTYPE html>")  # doctest: +SKIP
            True
        """
        return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(self.title)}</title>"
                f"</head><body>{self._repr_html_()}</body></html>\n")


def _code(line: str) -> str:
    """One line of Python as HTML: rule comments marked, Pygments colours when installed."""
    comment = _COMMENT.match(line)
    if comment is not None and comment.group(2).startswith("rule: "):
        return f'<span class="rule">{html.escape(line)}</span>'
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer
    except ImportError:
        return html.escape(line)
    return str(highlight(line, PythonLexer(stripnl=False), HtmlFormatter(nowrap=True))).rstrip("\n")


def _pygments_css() -> str:
    try:
        from pygments.formatters import HtmlFormatter
    except ImportError:
        return ""
    return str(HtmlFormatter().get_style_defs(".srcad-view"))


def show(func: Callable[..., Any], wrt: Wrt = 0, mode: str = "reverse", *, rules: bool = True,
         optimize: bool = True) -> Shown:
    """``func``'s derivative to read: prints as code, renders side by side in Jupyter.

    Example::

        >>> import numpy as np, srcad
        >>> def f(x):
        ...     return np.sum(np.sin(x))
        >>> print(srcad.show(f, rules=False))   # doctest: +SKIP
    """
    parsed = parse_function(func)
    if rules:
        names, as_tuple = api.resolve_wrt(func, wrt)
        text = annotated_source(func, names, mode, {"optimize": optimize, "tuple_result": as_tuple})
    else:
        text = api.source(func, wrt, mode, optimize=optimize)
    title = f"{getattr(parsed.func, '__qualname__', parsed.tree.name)} ({parsed.filename}:{parsed.first_line})"
    return Shown(text, list(parsed.lines), parsed.first_line, title)
