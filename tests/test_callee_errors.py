"""An error raised while differentiating a called helper keeps its kind at the call.

Contract: when srcad calls a helper of another module through the helper's
own derivative and building that derivative fails, the error raised at the
call is of the helper's error class (``ComplexError`` here), located at the
call in f and naming the helper's own line, in both modes.
"""
import os

import pytest

import srcad

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
import callee_helpers

THIS_FILE = os.path.abspath(__file__)


def calls_a_complex_helper(t):
    s = 0.0
    for _ in range(2):
        s = s + callee_helpers.rotated(t)
    return s


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_callees_complex_error_stays_a_complex_error(mode):
    with pytest.raises(srcad.ComplexError) as caught:
        srcad.autodiff(calls_a_complex_helper, mode=mode)(0.3, 1.0)
    message = str(caught.value)
    assert message.startswith(f"{THIS_FILE}:"), message
    assert "callee_helpers.py:6" in message and "np.maximum" in message, message
