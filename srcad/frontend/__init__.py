"""Everything that touches Python text: the user's source in, generated source out.

Contract:
- ``source``: finds, reads and parses the user's function (``parse_function``);
- ``codecheck``: whether the text read is the code that runs (compiled and
  compared, line numbers aside), and a digest of code objects for keys;
- ``syntax``: small helpers to build and inspect gast trees;
- ``naming``: readable, unique names (``Namer``) and the generated module's
  globals (``Bindings``);
- ``emit``: gast to Python text, the one place astor is used;
- ``loader``: compiles generated text into a module and binds its globals;
- ``tracebacks``: ties an exception in generated code to the user's line.
None of these knows about passes, rules or derivatives.

Example::

    >>> from srcad.frontend.naming import Namer
    >>> Namer({"x"}).fresh("x")
    'x_2'
"""
