"""The ``srcad`` command line: print the derivative srcad generates for a function, and more.

Contract:
- ``srcad show TARGET`` prints the generated derivative of the function
  TARGET names (``path/to/file.py:name`` or ``package.module:name``, where
  ``name`` may be ``Class.method``); its options are in ``srcad/cli_show.py``,
  the loading of targets in ``srcad/cli_targets.py``.
- ``srcad templates`` lists the functions srcad has rules for, and
  ``--missing`` those it lacks (``srcad/cli_templates.py``).
- ``srcad doctor`` prints versions, the cache directory and its state, and
  which optional packages are usable (``srcad/doctor.py``).
- ``srcad kernel`` compiles index-notation kernels (``srcad/kernels/cli.py``).
- A target that cannot be loaded (missing file or module, syntax error, no
  such name, not a function) prints one line on stderr and exits with 2.  A
  ``SrcadError`` raised by the transformation prints its message (which may
  span several lines: place, source line, caret, hint) and exits with 1.
  Neither prints a traceback.
- ``python -m srcad`` is the same command.

Example::

    $ srcad show examples/quickstart.py:loss --wrt W
    $ srcad show examples/quickstart.py:loss --rules --color always | less -R
    $ python -m srcad show mypackage.model:Model.energy --wrt 0,1 --diff
    $ srcad templates --missing
    $ srcad doctor
"""
from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from . import api
from .cli_show import show
from .cli_targets import TARGET_FORM, TargetError, load_module_from_file, load_target, parse_wrt
from .cli_templates import display_name, list_missing, list_rules
from .display import COLOR_CHOICES
from .doctor import report
from .errors import SrcadError
from .kernels import cli as kernel_cli
from .version import __version__

__all__ = ["main", "parse_wrt", "load_target", "load_module_from_file", "display_name", "TargetError"]

EXIT_OK, EXIT_SRCAD_ERROR, EXIT_BAD_TARGET = 0, 1, 2


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="srcad", description="Show the derivative code srcad generates for a Python function, "
                                  "or list the functions it has gradient rules for.")
    parser.add_argument("--version", action="version", version=f"srcad {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    show = commands.add_parser(
        "show", help="print the generated derivative of a function",
        description="Print the generated derivative of a function.")
    show.add_argument("target", metavar="TARGET", help=f"the function: {TARGET_FORM}")
    show.add_argument("--wrt", default=None,
                      help="parameter position(s) or name(s) to differentiate with respect to, "
                           "comma-separated (default: the first parameter; for Class.method, the "
                           "first after self or cls)")
    show.add_argument("--mode", choices=api.MODES, default="reverse", help="default: reverse")
    show.add_argument("--passes", action="store_true",
                      help="print the function after each pipeline stage that changes it")
    show.add_argument("--diff", action="store_true",
                      help="print what each pipeline stage changed, as a unified diff (implies --passes)")
    show.add_argument("--no-optimize", dest="optimize", action="store_false",
                      help="skip the optimisation passes")
    show.add_argument("--rules", action="store_true",
                      help="write above the code each rule made where that rule is written "
                           "(# rule: grad_templates/trig.py:126 tanh_adjoint)")
    show.add_argument("--color", choices=COLOR_CHOICES, default="auto",
                      help="colour the code: auto (the default) colours a terminal unless NO_COLOR is set; "
                           "Python is highlighted when Pygments is installed (pip install srcad[color])")
    show.add_argument("--html", metavar="FILE", default=None,
                      help="also write FILE: a self-contained page with the function and its derivative side by "
                           "side, each line linked to the code generated from it")
    show.add_argument("--ranks", default=None,
                      help="the variant for arguments of these ranks, comma-separated (e.g. 2,2): what runs "
                           "when a function whose loops store element by element, or that multiplies matrices, gets "
                           "arrays of those ranks")
    show.add_argument("--backend", choices=("numpy", "numba"), default="numpy",
                      help="numba: the module numba compiles (for --ranks, all scalars by default)")
    show.add_argument("--checkpoints", type=int, default=None, metavar="K",
                      help="the derivative whose top-level range loops keep at most K states (binomial "
                           "checkpointing), then each loop's step function and the step's derivative")
    kernel_cli.add_command(commands)
    templates = commands.add_parser(
        "templates", help="list the functions srcad has gradient rules for, and their modes",
        description="List the functions srcad has gradient rules for (and in which modes), then those "
                    "declared non-differentiable, then the totals.")
    templates.add_argument("--missing", action="store_true",
                           help="list the functions autograd differentiates that srcad does not, by module")
    commands.add_parser("doctor", help="print versions, the cache directory and its state, and the optional "
                                       "packages srcad can use",
                        description="Print srcad's version, Python's, the required packages', the derivative "
                                    "cache's directory and state, and which optional packages import.")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the ``srcad`` command with ``argv`` (default: ``sys.argv[1:]``); the exit status.

    Example::

        >>> main(["show", "examples/quickstart.py:loss", "--wrt", "W"])   # doctest: +SKIP
        0
    """
    args = _build_parser().parse_args(argv)
    try:
        if args.command == "templates":
            return list_missing(sys.stdout) if args.missing else list_rules(sys.stdout)
        if args.command == "kernel":
            return kernel_cli.run(args, sys.stdout)
        if args.command == "doctor":
            return report(sys.stdout)
        return show(args, sys.stdout)
    except TargetError as exc:
        print(f"srcad: {exc}", file=sys.stderr)
        return EXIT_BAD_TARGET
    except SrcadError as exc:
        print(f"srcad: error: {exc}", file=sys.stderr)
        return EXIT_SRCAD_ERROR
    except BrokenPipeError:  # e.g. `srcad show ... | head`
        sys.stderr.close()
        return EXIT_OK
