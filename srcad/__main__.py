"""``python -m srcad``: the same command as ``srcad`` (see ``srcad.cli``).

Example::

    $ python -m srcad show examples/quickstart.py:loss
"""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
