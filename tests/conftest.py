"""Test configuration: make the helper modules in tests/ importable (``from gradcheck import ...``)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
