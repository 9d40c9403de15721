"""Facts about generated trees that several passes share; nothing here changes a tree.

Contract:
- ``blocks``: names bound, read and written in blocks of statements, and
  which names may share memory (``MemorySharing``);
- ``shapes``: which names provably share a shape, and their ranks
  (``ShapeTable``);
- ``expressions``: facts about one expression (a fresh value, a constant or
  int index, the object a call denotes).

Example::

    >>> from srcad.analysis.expressions import is_fresh
    >>> import gast
    >>> is_fresh(gast.parse("a * b").body[0].value)
    True
"""
