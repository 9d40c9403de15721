"""Rewrite ``tests/golden/*.py`` from what srcad generates now.

Usage: ``python tests/regen_golden.py`` (from anywhere), then review
``git diff tests/golden`` like any code change: the golden files are the
derivatives users will read.  The disk cache is off while generating, so the
files reflect the current generator, not a cached older output.  Golden files
of cases no longer listed in ``golden_functions.GOLDEN_CASES`` are deleted.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_DIR = os.path.join(HERE, "golden")


def generate(function, wrt, mode) -> str:
    """The derivative source srcad emits now, built from scratch (no memory or disk cache)."""
    import srcad.api
    srcad.api._MEMORY.clear()
    return srcad.source(function, wrt=wrt, mode=mode)


def golden_path(name: str) -> str:
    return os.path.join(GOLDEN_DIR, f"{name}.py")


def main() -> int:
    os.environ["SRCAD_CACHE"] = "0"
    sys.path.insert(0, HERE)
    from golden_functions import GOLDEN_CASES
    os.makedirs(GOLDEN_DIR, exist_ok=True)
    wanted = set()
    for name, function, wrt, mode in GOLDEN_CASES:
        path = golden_path(name)
        wanted.add(os.path.basename(path))
        text = generate(function, wrt, mode)
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old != text:
            with open(path, "w", encoding="utf-8") as stream:
                stream.write(text)
            print(f"{'updated' if old is not None else 'created'} {os.path.relpath(path)}")
    for stale in sorted(set(os.listdir(GOLDEN_DIR)) - wanted):
        if stale.endswith(".py"):
            os.remove(os.path.join(GOLDEN_DIR, stale))
            print(f"deleted {stale}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
