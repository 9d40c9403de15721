"""``srcad show TARGET``: print the derivative srcad generates for a function, in colour on a terminal.

Contract:
- Prints the generated derivative module of TARGET's function, exactly as
  ``srcad.source`` returns it.  ``--wrt``, ``--mode``, ``--no-optimize``,
  ``--ranks`` and ``--checkpoints`` pick the derivative (``srcad --help``).
- ``--passes`` prints the function after every pipeline stage that changed
  it, each under a ``# ---- after <stage> ----`` header, then the generated
  module under ``# ---- generated module ----``; ``--diff`` (which implies
  ``--passes``) shows each stage after the first as a unified diff against
  the one before.
- ``--rules`` adds ``# rule: grad_templates/trig.py:126 tanh_adjoint``
  above the code each rule made (``srcad/rule_comments.py``); without the
  comment lines the module is the one ``srcad.source`` returns.
- ``--html FILE`` also writes the side-by-side page of ``srcad.show``
  (``srcad/view.py``) to FILE (not with ``--ranks`` or ``--checkpoints``).
- ``--color auto|always|never`` (``srcad/display.py``): by default, colour
  only on a terminal and never with ``NO_COLOR`` set; Python is highlighted
  with Pygments when installed, diffs in plain ANSI colours.  Without colour
  the output holds no escape code.

Example::

    $ srcad show examples/quickstart.py:loss --wrt W --rules --color never
"""
from __future__ import annotations

import argparse
import difflib
import inspect
from typing import Any, Dict, List, Optional, TextIO, Tuple

from . import api, pipeline, view
from .cli_targets import TargetError, parse_wrt, resolve_target
from .display import highlight_diff, highlight_python, wants_color
from .errors import SrcadError
from .rule_comments import annotated_source
from .version import __version__


class _Printer:
    """Writes Python or diff text to ``out``, coloured or not."""

    def __init__(self, out: TextIO, color: bool) -> None:
        self.out, self.color = out, color

    def python(self, text: str) -> None:
        self.out.write(highlight_python(text) if self.color else text)

    def diff(self, text: str) -> None:
        self.out.write(highlight_diff(text) if self.color else text)


def parse_ranks(text: Optional[str]) -> Optional[Tuple[int, ...]]:
    """``"2,2"`` as ``(2, 2)``; None when not given.

    Example::

        >>> parse_ranks("2,0"), parse_ranks(None)
        ((2, 0), None)
    """
    if not text:
        return None
    try:
        ranks = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise TargetError(f"--ranks {text!r}: give one non-negative integer per argument, e.g. --ranks 2,1") \
            from None
    if any(rank < 0 for rank in ranks):
        raise TargetError(f"--ranks {text!r}: a rank is a number of dimensions, 0 or more")
    return ranks


def show(args: argparse.Namespace, out: TextIO) -> int:
    """Run ``srcad show`` with parsed ``args``, writing to ``out``; the exit status.

    Example::

        >>> show(_build_parser().parse_args(["show", "examples/quickstart.py:loss"]), sys.stdout)  # doctest: +SKIP
        0
    """
    func, first_parameter = resolve_target(args.target)
    wrt = parse_wrt(args.wrt) if args.wrt is not None else first_parameter
    if args.mode not in pipeline.PIPELINES:
        raise SrcadError(f"{args.mode} mode is not available in srcad {__version__}")
    names, as_tuple = api.resolve_wrt(func, wrt)
    ranks = parse_ranks(args.ranks)
    printer = _Printer(out, wants_color(args.color, out))
    options: Dict[str, Any] = {"optimize": args.optimize, "tuple_result": as_tuple}
    if args.checkpoints:
        options["checkpoints"] = args.checkpoints
    if ranks:
        options["param_ranks"] = ranks
    if args.html:
        if ranks or args.checkpoints:
            raise TargetError("--html shows the derivative srcad.show gives: run it without --ranks and "
                              "--checkpoints")
        page = view.show(func, wrt, args.mode, rules=args.rules, optimize=args.optimize)
        with open(args.html, "w", encoding="utf-8") as stream:
            stream.write(page.html_page())
    if args.passes or args.diff:
        _show_passes(func, names, args, options, printer)
        return 0
    if args.rules:
        printer.python(annotated_source(func, names, args.mode, options))
    else:
        printer.python(api.source(func, wrt, args.mode, optimize=args.optimize, ranks=ranks,
                                  checkpoints=args.checkpoints, backend=getattr(args, "backend", "numpy")))
    if args.checkpoints and args.mode == "reverse":
        _show_steps(api.derivative(func, wrt, args.mode, args.optimize, checkpoints=args.checkpoints), printer)
    return 0


def _show_passes(func, names, args: argparse.Namespace, options: Dict[str, Any], printer: _Printer) -> None:
    """The function after each stage that changed it (as diffs with ``--diff``), then the module."""
    previous: List[str] = []

    def observe(stage: str, text: str) -> None:
        header = "# ---- source ----" if stage == "source" else f"# ---- after {stage} ----"
        if previous and text == previous[-1]:   # the stage ran but left the text as it was
            return
        printer.python(f"{header}\n")
        if args.diff and previous:   # what this stage changed
            printer.diff("\n".join(difflib.unified_diff(previous[-1].splitlines(), text.splitlines(),
                                                        "before", stage, lineterm="")).rstrip() + "\n\n")
        else:
            printer.python(f"{text.rstrip()}\n\n")
        previous.append(text)

    if args.rules:
        generated = annotated_source(func, names, args.mode, options, observe=observe)
    else:
        generated = pipeline.build(func, names, args.mode, options, observe=observe).source
    printer.python("# ---- generated module ----\n" + generated)


def _show_steps(derivative, printer: _Printer) -> None:
    """Each checkpointed loop's step function (``srcad.passes.checkpoints``) and its derivative."""
    for step in derivative._generated.__globals__.values():
        if getattr(step, "srcad_loop_step", False):
            parameters = step.__code__.co_varnames[1:step.__code__.co_argcount]
            printer.python(f"\n\n# ---- {step.__name__}: one step of the loop ----\n{inspect.getsource(step)}"
                           f"\n\n{api.source(step, tuple(parameters))}")
