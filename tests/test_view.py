"""``srcad.show``: the derivative as text, and side by side as HTML (Jupyter, ``srcad show --html``).

Contract checked here (the structure of the page, read with ``html.parser``;
a test that drives the page's script in a headless browser is still to come):
- ``str(srcad.show(f))`` is the ``--rules`` module: ``srcad.source`` plus
  ``# rule:`` lines; with ``rules=False`` exactly ``srcad.source``; the
  derivative itself is right (finite differences, both modes).
- The page has one ``.line`` per line of the function, numbered as in the
  file; the ``.block`` elements hold the generated module line for line;
  every block under a ``# <line>`` comment links (``data-lines``) the user
  lines with that text, every line with generated code is linked both ways,
  and the rules appear in the blocks they annotate.
- The page is self-contained: no ``src``/``href`` to anything, no
  ``<link>``, no ``@import``; ``srcad show --html FILE`` writes the same page.
- ``import srcad`` does not import the view; ``srcad.show`` does.
"""
import html
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import srcad
from srcad import cli
from tests.gradcheck import check_both_modes

REPO = Path(__file__).resolve().parent.parent
MODEL = '''\
import numpy as np


def energy(x, y):
    s = np.tanh(x) * y
    total = np.sum(np.exp(s))
    return total + np.sum(s ** 2)
'''


class _Page(HTMLParser):
    """The user lines, the blocks (their data-lines and text) and every URL-bearing attribute of a page."""

    def __init__(self):
        super().__init__()
        self.lines, self.blocks, self.urls, self.tags = {}, [], [], []
        self._open = []   # (kind, key) for the elements whose text we collect

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append(tag)
        self.urls += [value for name, value in attrs if name in ("src", "href")]
        classes = (attributes.get("class") or "").split()
        if tag == "div" and "line" in classes:
            self.lines[int(attributes["data-line"])] = ""
            self._open.append(("line", int(attributes["data-line"])))
        elif tag == "div" and "block" in classes:
            numbers = [int(n) for n in attributes["data-lines"].split()]
            self.blocks.append([numbers, "", "linked" in classes])
            self._open.append(("block", len(self.blocks) - 1))
        elif tag == "span" and "number" in classes:
            self._open.append(("number", None))
        else:
            self._open.append((None, None))

    def handle_endtag(self, tag):
        self._open.pop()

    def handle_data(self, data):
        kinds = [kind for kind, _ in self._open]
        if "number" in kinds:
            return
        for kind, key in reversed(self._open):
            if kind == "line":
                self.lines[key] += data
                return
            if kind == "block":
                self.blocks[key][1] += data
                return


@pytest.fixture
def model(tmp_path, monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "model_view.py"
    path.write_text(MODEL)
    import importlib.util
    spec = importlib.util.spec_from_file_location("model_view", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _page(text):
    page = _Page()
    page.feed(text)
    return page


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_text_is_the_source_with_rules_and_the_derivative_is_right(model, mode):
    shown = srcad.show(model.energy, wrt=(0, 1), mode=mode)
    plain = srcad.source(model.energy, wrt=(0, 1), mode=mode)
    without = "".join(line for line in str(shown).splitlines(keepends=True) if "# rule: " not in line)
    assert without == plain and "# rule: grad_templates/" in str(shown)
    assert str(srcad.show(model.energy, wrt=(0, 1), mode=mode, rules=False)) == plain
    check_both_modes(model.energy, (np.linspace(-1.0, 1.0, 4), np.linspace(0.5, 2.0, 4)), wrt=(0, 1))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_the_page_links_each_user_line_to_its_generated_blocks(model, mode):
    shown = srcad.show(model.energy, wrt=(0, 1), mode=mode)
    page = _page(shown.html_page())
    source_lines = MODEL.splitlines()
    assert page.lines == {number: source_lines[number - 1] for number in range(4, 8)}
    generated = "\n".join(text for _, text, _ in page.blocks)
    assert html.unescape(generated) == str(shown).rstrip("\n")
    for numbers, text, linked in page.blocks:
        assert linked == bool(numbers)
        if numbers:
            comment = text.splitlines()[0].strip()
            assert all(comment == "# " + page.lines[n].strip() for n in numbers), (comment, numbers)
    linked_lines = {n for numbers, _, _ in page.blocks for n in numbers}
    assert linked_lines == {5, 6, 7}   # every line with code; the def line has none
    rules = [text for numbers, text, _ in page.blocks if "# rule: " in text]
    assert rules and all(numbers for numbers, text, _ in page.blocks if "# rule: " in text)


def test_the_page_is_self_contained_and_the_command_writes_it(model, capsys, tmp_path):
    target = tmp_path / "view.html"
    assert cli.main(["show", f"{model.__file__}:energy", "--rules", "--html", str(target), "--color", "never"]) == 0
    printed = capsys.readouterr().out
    text = target.read_text()
    page = _page(text)
    assert text.startswith("<!DOCTYPE html>") and "<script>" in text and "<style>" in text
    assert page.urls == [] and "link" not in page.tags and "@import" not in text and "http" not in text
    assert html.unescape("\n".join(t for _, t, _ in page.blocks)) == printed.rstrip("\n")
    assert srcad.show(model.energy, rules=True)._repr_html_() in text


def test_html_refuses_options_the_page_does_not_show(model, capsys, tmp_path):
    status = cli.main(["show", f"{model.__file__}:energy", "--html", str(tmp_path / "v.html"), "--ranks", "1,1"])
    assert status == 2 and "--html" in capsys.readouterr().err and not (tmp_path / "v.html").exists()


def test_import_srcad_does_not_import_the_view():
    probe = ("import sys, srcad; before = 'srcad.view' in sys.modules; srcad.show; "
             "print(before, 'srcad.view' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=str(REPO),
                         env={**os.environ, "PYTHONPATH": str(REPO)}).stdout.split()
    assert out == ["False", "True"]
