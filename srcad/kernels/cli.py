"""The ``srcad kernel`` command: generate code for an index-notation kernel case.

Contract:
- ``add_command(commands)`` registers ``kernel`` on srcad's subcommand
  parser; ``run(args, out)`` carries it out and returns the exit status.
- ``srcad kernel CASE.json`` prints the generated Python module; ``-o FILE``
  writes it to FILE instead; ``--target cpp`` prints C++; ``--scatter``
  keeps gradient stores in scatter form (gather form is the default);
  ``--vectorize`` (Python only) uses NumPy for elementwise maps and, with
  ``--reassociate``, ``np.einsum`` for contractions.  ``--reassociate``
  lets sums be regrouped (see ``order.py``); by default every value is
  evaluated in the order the kernel is written.
- Problems with the case raise ``KernelError`` (a ``SrcadError``), which
  the ``srcad`` command prints without a traceback and exits with 1; a
  kernel that does not parse is reported at its line and column.

Example::

    $ srcad kernel examples/kernel_pool.json --target cpp -o pool.cc
"""
from __future__ import annotations

import argparse
import os

from . import TARGETS, generate
from .model import KernelError


def add_command(commands) -> argparse.ArgumentParser:
    """Add the ``kernel`` subcommand to ``commands`` (an argparse subparsers object).

    Example::

        >>> parser = argparse.ArgumentParser(); _ = add_command(parser.add_subparsers(dest="command"))
        >>> parser.parse_args(["kernel", "case.json", "--target", "cpp"]).target
        'cpp'
    """
    kernel = commands.add_parser(
        "kernel", help="generate Python or C++ (with the gradient) for an index-notation kernel case",
        description="Generate the forward kernel and, when the case has grad_to, its gradient, "
                    "from a JSON case {name, ins, outs, data_type, kernel, grad_to}.")
    kernel.add_argument("case", metavar="CASE.json", help="the kernel case file")
    kernel.add_argument("--target", choices=TARGETS, default="python", help="default: python")
    kernel.add_argument("-o", "--output", metavar="FILE", help="write the code to FILE instead of stdout")
    kernel.add_argument("--scatter", action="store_true",
                        help="keep gradient stores in scatter form (dB[i + 1] += ...) instead of gather form")
    kernel.add_argument("--vectorize", action="store_true",
                        help="python target: use NumPy slices for elementwise maps (and, with --reassociate, "
                             "np.einsum for contractions)")
    kernel.add_argument("--reassociate", action="store_true",
                        help="allow regrouping floating-point sums (alpha * sum(B * C) instead of adding "
                             "alpha * B * C term by term); the header says so")
    return kernel


def run(args: argparse.Namespace, out) -> int:
    """Generate the code ``args`` ask for; write it to ``args.output`` or ``out``; the exit status."""
    code = generate(args.case, target=args.target, gather=not args.scatter, vectorize=args.vectorize,
                    reassociate=args.reassociate)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as handle:
                handle.write(code)
        except OSError as exc:
            raise KernelError(f"cannot write {os.fspath(args.output)}: {exc.strerror}") from None
    else:
        out.write(code)
    return 0
