"""Statements and expressions of Python as people write it (issue [language], items 2, 3 and 7).

Contract:
- Every function in ``CASES`` is a small module-level function (srcad reads
  this file) using one construct: ``raise``; ``try``/``except``/``else``/
  ``finally``; ``with`` for context managers that touch no derivative;
  ``for``/``while`` ... ``else``; ``:=``; f-strings; ``del name``; generator
  expressions, set and dict comprehensions and the builtins that consume
  them (``sum``, ``min``, ``max``, ``any``, ``all``, ``sorted``,
  ``reversed``); a lambda called in place, ``enumerate(zip(...))``,
  ``zip(*rows)``, ``map``, ``filter``, ``tuple``, ``list``, ``dict``,
  ``math.fsum``; ``//``.  Several input sets drive a function down its
  different paths (an exception raised or not, a loop left by ``break`` or
  not).
- For every case, mode and ``optimize``: the derivative matches central
  finite differences in float64 (``test_language``'s checks), the value
  ``value_and_grad``, ``vjp`` and ``jvp`` return is ``f(*args)``, and
  ``<u, J v> = <J^T u, v>`` between the two modes.
- ``raise``: the derivative raises the exception f raises, same type and
  message, in both modes.  ``try``: the statements of the body that ran
  before the exception are differentiated (the handler reads their values);
  an exception only a derivative would raise is never taken for one of f's
  (a handler catching ``Exception`` keeps its meaning); the derivative code
  has the real ``try`` around f's own statement only.  ``with``: the
  derivative runs f's statements inside the same ``with``; a manager made
  from a differentiated value is refused, and one that swallows an exception
  raises ``SrcadError`` instead of carrying on.
- ``sum(x[i] * w[i] for i in range(n))`` has exactly ``w`` as its gradient
  with respect to ``x``; ``sorted`` moves derivatives with the items.
- Refusals (a ``try`` inside a ``try`` body, ``del`` of an item, a set of
  differentiated values, ``return`` inside ``with`` other than at its end, a
  generator kept in a variable, ``key=``) name the user's line, the construct
  and a fix.
"""
import contextlib
import functools
import math
import os
import time
import warnings

import numpy as np
import pytest

import srcad
from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import check_forward_reverse, check_values
from test_language import case, check_forward, check_reverse, fresh

THIS_FILE = os.path.abspath(__file__)
V3 = np.array([0.3, -0.4, 0.7])
W3 = np.array([0.5, 1.5, -2.0])
SPD = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.0]])
INDEFINITE = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.5], [0.0, 0.5, 1.0]])

# ==========================================================================
# raise


def r_guard(x):
    if np.max(np.abs(x)) > 10.0:
        raise ValueError(f"|x| reaches {np.max(np.abs(x)):.1f}, more than 10")
    return np.sum(np.sin(x) * x)


def r_in_loop(x):
    s = 0.0
    for v in x:
        if v > 5.0:
            raise OverflowError("too large: " + str(v))
        s = s + v * v
    return s


def r_else_arm(x):
    total = np.sum(x)
    if total > -10.0:
        return total * total
    raise ArithmeticError("sum too small")


def r_in_helper(x):
    def checked(v):
        if v < -5.0:
            raise ValueError("negative")
        return v * 3.0
    return checked(x[0]) + x[1]


# ==========================================================================
# try / except / else / finally


def t_cholesky_jitter(K):
    n = K.shape[0]
    try:
        L = np.linalg.cholesky(K)
    except np.linalg.LinAlgError:
        L = np.linalg.cholesky(K @ K.T + n * np.eye(n))
    return np.sum(L * L) + np.sum(L)


def t_body_ran_before(x):
    y = x * 2.0
    try:
        z = y * y                              # runs
        L = np.linalg.cholesky(np.outer(z, z))  # fails for more than one element
        s = np.sum(L)
    except np.linalg.LinAlgError:
        s = np.sum(z ** 3) + np.sum(y)       # reads what ran before the exception
    return s


def t_per_element(x):
    s = 0.0
    for v in x:
        try:
            s = s + math.log(v) * v
        except ValueError:
            s = s - v * v
    return s


def t_else_finally(x):
    t = float(np.sum(x))
    try:
        y = math.sqrt(t)
    except ValueError:
        y = -t * 2.0
    else:
        y = y * 3.0
    finally:
        y = y + t * t
    return y


def t_handlers(x, k):
    a = float(x[0])
    try:
        if k == 0:
            y = 1.0 / k + a          # ZeroDivisionError
        elif k > 0:
            y = math.exp(a * k)      # OverflowError for a large a * k
        else:
            y = math.sqrt(a * k)     # ValueError when a * k < 0
    except ZeroDivisionError:
        y = a * 5.0
    except (ValueError, OverflowError) as error:
        message = f"{type(error).__name__}: {error}"
        y = x[1] * float(len(message))
    return y * x[2]


def t_return_inside(A, b):
    try:
        return np.sum(np.linalg.solve(A, b))
    except np.linalg.LinAlgError:
        return np.sum(np.linalg.pinv(A) @ b)


def t_raise_caught(x):
    try:
        if x[0] > 0.0:
            raise ValueError("positive")
        y = np.sin(x)
    except ValueError:
        y = x * x
    return np.sum(y)


def t_reraise(x, strict):
    try:
        y = np.linalg.cholesky(np.diag(x))
    except np.linalg.LinAlgError:
        if strict:
            raise
        y = np.diag(x * x)
    return np.sum(y)


def t_continue_in_handler(x):
    s = 0.0
    for i in range(len(x)):
        try:
            r = math.sqrt(x[i])
        except ValueError:
            continue
        s = s + r * x[i]
    return s


def t_catch_all(t):
    try:
        y = math.sqrt(t) * 3.0
    except Exception:
        y = -t
    return y


def t_with_inside(x):
    try:
        with np.errstate(divide="ignore"):
            y = np.log(np.abs(x))
        L = np.linalg.cholesky(np.diag(y * y + 1.0))
    except np.linalg.LinAlgError:
        L = np.eye(3)
    return np.sum(L)


def t_zero_division(x, k):
    a = float(x[0])
    try:
        if k == 0:
            y = a / 0.0
        elif k == 1:
            y = a % 0.0
        elif k == 2:
            y = 0.0 ** -1.0 + a
        else:
            y = a // 0.0
    except ZeroDivisionError:
        y = a * 7.0
    return y * x[1]


def t_lookup(x, k):
    items = [x[0], x[1]]
    table = {"a": x[2]}
    try:
        if k == 0:
            y = items[5]
        else:
            y = table["b"]
    except LookupError:
        y = x[0] * 3.0
    return y * x[1]


def t_value_error(x, k):
    try:
        if k == 0:
            y = x + np.ones(2)           # shapes
        elif k == 1:
            y = np.reshape(x, (2, 2))    # a NumPy function
        else:
            y = x * math.sqrt(-1.0 * k)  # math
    except ValueError:
        y = x * 4.0
    return np.sum(y * x)


def t_overflow(x, k):
    a = float(x[0])
    try:
        if k == 0:
            y = math.exp(a * 1000.0)
        else:
            y = (a * 1000.0) ** 400
    except ArithmeticError:
        y = a * 9.0
    return y * x[1]


def inverse_of(a):
    return np.linalg.inv(a)


def t_linalg_in_helper(x):
    A = np.outer(x, np.array([1.0, 0.0, 0.0]))   # two zero columns: singular
    try:
        s = np.sum(inverse_of(A))
    except np.linalg.LinAlgError:
        s = np.sum(A * A)
    return s


def safe_log(v):
    try:
        return math.log(v)
    except ValueError:
        return -1.0 * v


def t_helper_returns_inside_try(x):
    s = 0.0
    for v in x:
        s = s + safe_log(v) * v   # the helper is inlined: its returns stay its own
    return s


def t_local_helpers_with_try_and_with(x):
    def safe(v):
        try:
            r = math.sqrt(v)
            return r * v
        except ValueError:
            pass
        return -v

    def quiet(v):
        with np.errstate(divide="ignore"):
            return np.log(v)
    s = 0.0
    for v in x:
        s = s + safe(v)
    return s + np.sum(quiet(x * x))


def t_update_in_loop(x, W):
    y = x
    for k in range(2):
        try:
            y = W @ y   # ValueError when W does not fit: every iteration takes the handler
        except ValueError:
            y = y * 2.0 + np.sin(y)
    return np.sum(y * y)


def t_exception_leaves_a_loop(x):
    s = 0.0
    try:
        for v in x:
            s = s + math.sqrt(v) * v   # ValueError at the first negative item: the loop stops there
    except ValueError:
        s = s * 2.0 + x[0]
    return s


def t_finally_only(x):
    try:
        y = np.sin(x)
    finally:
        z = 2.0
    return np.sum(y * z)


FINALLY_RAN = []


def t_finally_when_raising(x):
    try:
        y = np.sqrt(x)
        if np.min(x) < 0.0:
            raise ValueError("a negative entry")
    finally:
        FINALLY_RAN.append(1)
    return np.sum(y * 2.0)


def t_finally_after_handlers(x):
    try:
        y = np.log(x)
        if np.max(x) > 5.0:
            raise OverflowError("too large")
        z = 1.0 / np.min(x)
    except ZeroDivisionError:
        z = 0.0
    finally:
        FINALLY_RAN.append(2)
    return np.sum(y) * z


def t_finally_after_a_handler_raises(x):
    try:
        y = np.sqrt(x)
        if np.min(x) < 0.0:
            raise ValueError("a negative entry")
    except ValueError as error:
        FINALLY_RAN.append(-1)
        if np.max(x) > 0.0:
            raise OverflowError(f"mixed signs: {error}")
        y = -x
        if np.min(x) < -10.0:
            raise
        FINALLY_RAN.append(-2)
    else:
        if np.max(x) > 100.0:
            raise KeyError("large")
        y = y * 2.0
    finally:
        FINALLY_RAN.append(3)
    return np.sum(y * x)


def t_finally_in_loop(x):
    total = 0.0
    for k in range(3):
        try:
            total = total + np.sum(np.sin(x * k))
            if np.max(x) * k > 10.0:
                raise ArithmeticError("diverged")
        finally:
            FINALLY_RAN.append(k)
    return total


# ==========================================================================
# with


class Timer:
    """A user's timer: touches no derivative."""

    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.elapsed = time.perf_counter() - self.start


def w_errstate(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(x * x)
    return np.sum(y * x)


def w_warnings_and_timer(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = np.sin(x) * 2.0
    with Timer() as timer:
        z = y * y
    assert timer.elapsed >= 0.0
    return np.sum(z)


def w_in_loop_with_return(x):
    s = 0.0
    for v in x:
        with np.errstate(over="ignore"), Timer():
            s = s + np.exp(v) * v
    with np.errstate(all="ignore"):
        return s * 2.0


class Quiet:
    """A user's manager that swallows every exception."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True


def w_swallowing(x, k):
    y = x
    with Quiet():
        y = x * (1.0 / k)
    return np.sum(y)


def w_suppress(x, k):
    y = x * 3.0
    with contextlib.suppress(ZeroDivisionError):
        y = x * (1.0 / k)
    return np.sum(y * x)


# ==========================================================================
# for/while ... else, :=, f-strings, del


def s_for_else(x):
    s = 0.0
    for v in x:
        if v > 1.0:
            s = s * 10.0
            break
        s = s + v * v
    else:
        s = s - np.sum(x)
    return s


def s_for_else_return(x):
    s = 0.0
    for v in x:
        if v > 2.0:
            return s * 5.0
        if v < -0.5:
            break
        s = s + v * v
    else:
        return s * 3.0
    return s - 1.0


def s_nested_for_else(x, w):
    s = 0.0
    for a in x:
        for b in w:
            if a * b > 0.6:
                break
            s = s + a * b
        else:
            s = s + a
    return s


def s_while_else(x, limit):
    k, s = 0, 0.0
    while k < len(x):
        if s > limit:
            break
        s = s + x[k] ** 2
        k += 1
    else:
        s = s * 3.0
    return s


def s_walrus(x):
    if (total := np.sum(x * x)) > 0.1:
        scale = total * 2.0
    else:
        scale = 1.0
    ys = [y for v in x if (y := v * scale) > -1.0]
    k, acc = 0, 0.0
    while (term := x[k] * total) < 10.0 and k < len(x) - 1:
        acc = acc + term * y
        k += 1
    return acc + ys[0] * total


def s_walrus_statement(x):
    (total := np.sum(x * x))
    copy = {k: d for k, d in zip(["a", "b"], [x, total])}
    again = {k: copy[k] for k in copy}
    return again["b"] * np.sum(again["a"])


def s_fstrings(x):
    label = f"n={len(x)}"
    y = np.tanh(x)
    print(f"{label}: first {y[0]:.3f}, sum {np.sum(y)!r}")
    if not label:
        raise RuntimeError(f"empty label for {x}")
    return np.sum(y * y)


def s_del(x):
    y = np.sin(x)
    z = y * 2.0
    del y
    y = z * x
    return np.sum(y)


def s_floor_division(x):
    return np.sum(x // 0.5 + x * 2.0 + (x * 3.0) % 1.0)


# ==========================================================================
# generator expressions, comprehensions and the builtins that consume them


def g_sum(x, w):
    n = len(x)
    return sum(x[i] * w[i] for i in range(n))


def g_min_max(x, w):
    return max(v * 2.0 for v in x) - min(a * b for a, b in zip(x, w))


def g_any_all(x, w):
    if any(v > 0.5 for v in x) and all(v > -5.0 for v in w):
        return np.sum(x * w)
    return np.sum(x)


def g_sorted(x, w):
    ys = sorted(x[i] * w[i] for i in range(3))
    zs = sorted([v * v for v in x], reverse=True)
    return ys[0] + ys[1] * 2.0 + ys[2] * 3.0 + zs[0] - zs[2] * 0.5


def g_reversed(x):
    ys = list(reversed([v * 2.0 for v in x]))
    return ys[0] * 3.0 + ys[1] + sum(reversed(x))


def g_set_and_dict(x, w):
    rows = {i % 2 for i in range(4)}
    d = {name: v * 2.0 for name, v in zip(["a", "b"], [x, w])}
    s = 0.0
    for i in sorted(rows):
        s = s + np.sum(d["a"] * d["b"]) * x[i]
    for name in d:
        s = s + np.sum(d[name] ** 2)
    return s


def g_nested(x, w):
    return sum(a * b for a in x for b in w if a > b)


def g_lambda(x, w):
    scale = (lambda a, b=2.0: a * b)(x[0])
    return np.sum((lambda v: v * scale + np.sin(v))(x) * w)


def g_enumerate_zip(x, w):
    s = 0.0
    for i, (a, b) in enumerate(zip(x, w)):
        s = s + a * b * (i + 1)
    for i, (a, b) in enumerate(zip(x, w), 2):
        s = s + a * i
    return s


def g_zip_star(x, w):
    rows = (x, w, x * w)
    s = 0.0
    for a, b, c in zip(*rows):
        s = s + a * b + c
    columns = list(zip(*[x, w]))
    return s + columns[0][0] * columns[2][1]


def g_map_filter(x, w):
    def square(v):
        return v * v
    a = list(map(np.sin, x))
    b = tuple(map(square, w))
    c = list(map(lambda p, q: p * q, x, w))
    d = list(filter(lambda v: v > 0.0, x))
    s = 0.0
    for v in map(np.cos, x):
        s = s + v
    return a[0] * b[1] + c[2] + d[0] + s


def g_builtins(x, w):
    t = tuple(v * 2.0 for v in x)
    ys = list(np.sin(x))
    d = dict(a=x * 2.0, b=w)
    pairs = [("a", x * 3.0), ("c", w)]
    copy, built = dict(d), dict(pairs)
    return t[0] * t[2] + ys[1] + np.sum(d["a"] * d["b"]) + math.fsum(v * v for v in w) + \
        np.sum(copy["a"] * built["a"] + built["c"])



def scaled_power(u, c, k=2.0):
    return c * u ** k


def p_local_partial(x, w):
    half = functools.partial(scaled_power, 0.5)
    cube = functools.partial(np.power, x)
    c = w[0]
    weigh = functools.partial(scaled_power, c=c, k=3.0)
    c = c * 2.0   # the partial keeps the value c had when it was made
    s = 0.0
    for v in x:
        s = s + half(v) + weigh(v, k=2.0) * c + weigh(u=w[1])
    return s + np.sum(cube(3.0))



def l_insert(x, w):
    ys = [x, 2.0 * x]
    ys.insert(1, np.sin(x))
    ys.insert(0, x * w[0])
    ys.insert(-1, w[1] * x)
    ys.insert(-10, x + 1.0)
    ys.insert(10, np.cos(x))
    at = len(ys) // 2
    ys.insert(at - 1, x ** 2)
    return np.sum(ys[0] * ys[1] + ys[2] - ys[3] * ys[4] + ys[5] * ys[6] - ys[7])


def l_insert_in_loop(x, w):
    hist = [w]
    for i in range(3):
        hist.insert(0, hist[0] * x + w)
        hist.insert(i, np.tanh(hist[-1]))
    return np.sum(np.stack(hist) ** 2)


def l_insert_parameter(x, ys):
    ys.insert(1, x * 2.0)
    return np.sum(ys[0] * ys[1] + ys[-1])



def tried_root(x):
    try:
        y = np.sqrt(x) if np.min(x) >= 0.0 else np.log(-x)
        if np.min(x) < 0.0:
            raise ValueError("negative")
    except ValueError:
        y = np.sin(x)
    return y


def scaled_sine(x):
    return np.sin(x) * 2.0


def t_helpers_called_in_try(x):
    try:
        y = tried_root(x) + scaled_sine(x)
    except ZeroDivisionError:
        y = x
    return np.sum(y * x)



def w_exits_in_loop(x, w):
    s = 0.0
    for i in range(len(x)):
        with np.errstate(all="ignore"):
            if x[i] < 0.0:
                continue
            s = s + x[i] * w[i]
            with warnings.catch_warnings():
                if s > 2.0:
                    break
                for j in range(3):
                    if j == 2:
                        break
                    s = s + np.sin(x[i]) * j
            s = s * 1.5
        s = s + w[i]
    return s



def l_item_of_a_list_changed_in_place(x):
    h = [x, np.sin(x)]
    v = h[0]   # the very array x: the change below shows through v too
    x *= 2.0
    return np.sum(v * x + h[1])


CASES = [
    case(r_guard, V3),
    case(r_in_loop, V3),
    case(r_else_arm, V3),
    case(r_in_helper, V3),
    case(t_cholesky_jitter, SPD, label="tried"),
    case(t_cholesky_jitter, INDEFINITE, label="handled"),
    case(t_body_ran_before, np.array([0.7]), label="tried"),
    case(t_body_ran_before, V3, label="handled"),
    case(t_per_element, np.array([0.3, -0.4, 0.7, -1.2])),
    case(t_else_finally, V3 + 1.0, label="else"),
    case(t_else_finally, V3 - 1.0, label="handled"),
    case(t_handlers, V3, 1, label="tried"),
    case(t_handlers, V3, 0, label="zero"),
    case(t_handlers, V3 * 4000.0, 1, label="overflow"),
    case(t_handlers, V3, -1, label="invalid"),
    case(t_return_inside, SPD, V3, wrt=None, label="tried"),
    case(t_return_inside, np.array([[0.3, -0.4], [0.5, 0.7], [0.2, 1.1]]), V3, wrt=None, label="handled"),
    case(t_raise_caught, V3, label="tried"),
    case(t_raise_caught, -V3, label="raised"),
    case(t_reraise, np.abs(V3), True, label="tried"),
    case(t_reraise, V3, False, label="handled"),
    case(t_continue_in_handler, np.array([0.3, -0.4, 0.7, 1.5])),
    case(t_catch_all, 0.7, label="tried"),
    case(t_catch_all, -0.7, label="handled"),
    case(t_with_inside, V3),
    case(t_finally_only, V3),
    case(t_finally_when_raising, np.abs(V3) + 0.1),
    case(t_finally_after_handlers, np.abs(V3) + 0.1),
    case(t_finally_in_loop, V3),
    case(t_finally_after_a_handler_raises, -np.abs(V3), label="handled"),
    case(t_finally_after_a_handler_raises, np.abs(V3), label="else"),
    *[case(t_zero_division, V3, k, label=str(k)) for k in range(4)],
    *[case(t_lookup, V3, k, label=str(k)) for k in range(2)],
    *[case(t_value_error, V3, k, label=str(k)) for k in range(3)],
    *[case(t_overflow, V3, k, label=str(k)) for k in range(2)],
    case(t_linalg_in_helper, V3),
    case(t_helper_returns_inside_try, V3),
    case(t_local_helpers_with_try_and_with, V3),
    case(t_update_in_loop, V3, SPD * 0.5, label="tried"),
    case(t_update_in_loop, V3, SPD[:2, :2], label="handled"),
    case(t_exception_leaves_a_loop, np.array([0.3, 0.5, 0.7]), label="tried"),
    case(t_exception_leaves_a_loop, np.array([0.3, 0.5, -0.2, 0.7]), label="handled"),
    case(w_errstate, V3),
    case(w_warnings_and_timer, V3),
    case(w_in_loop_with_return, V3),
    case(w_suppress, V3, 2.0, label="ran"),
    case(w_suppress, V3, 0.0, label="suppressed"),
    case(w_swallowing, V3, 2.0),
    case(s_for_else, V3, label="else"),
    case(s_for_else, np.array([0.3, 1.5, 0.2]), label="break"),
    case(s_for_else_return, np.array([0.3, 0.4, 0.7]), label="else"),
    case(s_for_else_return, np.array([0.3, 2.4, 0.7]), label="return"),
    case(s_for_else_return, np.array([0.3, -0.6, 0.7]), label="break"),
    case(s_nested_for_else, np.array([0.3, 0.9, 0.2]), np.array([0.5, 1.0, -0.3]), wrt=None),
    case(s_while_else, V3, 10.0, label="else"),
    case(s_while_else, V3, 0.05, label="break"),
    case(s_walrus, V3),
    case(s_walrus_statement, V3),
    case(s_fstrings, V3),
    case(s_del, V3),
    case(s_floor_division, np.array([0.3, -0.45, 0.7, 1.1])),
    case(g_sum, V3, W3, wrt=None),
    case(g_min_max, V3, W3, wrt=None),
    case(g_any_all, V3, W3, wrt=None, label="all"),
    case(g_any_all, V3 - 1.0, W3, wrt=None, label="none"),
    case(g_sorted, V3, W3, wrt=None),
    case(g_reversed, V3),
    case(g_set_and_dict, V3, W3, wrt=None),
    case(g_nested, V3, W3, wrt=None),
    case(g_lambda, V3, W3, wrt=None),
    case(g_enumerate_zip, V3, W3, wrt=None),
    case(g_zip_star, V3, W3, wrt=None),
    case(g_map_filter, V3, W3, wrt=None),
    case(g_builtins, V3, W3, wrt=None),
    case(p_local_partial, V3, W3, wrt=None),
    case(l_insert, V3, W3, wrt=None),
    case(w_exits_in_loop, np.array([0.3, -0.4, 0.7, 0.2]), np.array([0.5, 1.5, -2.0, 0.3]), wrt=None, label="through"),
    case(w_exits_in_loop, np.array([0.3, -0.4, 1.7, 0.2]), np.array([0.5, 1.5, 2.0, 0.3]), wrt=None, label="break"),
    case(t_helpers_called_in_try, np.abs(V3), label="tried"),
    case(t_helpers_called_in_try, -np.abs(V3), label="handled"),
    case(l_insert_in_loop, V3, W3, wrt=None),
    case(l_item_of_a_list_changed_in_place, V3),
    case(l_insert_parameter, V3, [W3, W3 * 2.0], wrt=0),
]


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,args,wrt", CASES)
def test_matches_finite_differences(function, args, wrt, mode, optimize):
    (check_reverse if mode == "reverse" else check_forward)(function, args, wrt, optimize)


@pytest.mark.parametrize("optimize", [True, False], ids=["opt", "noopt"])
@pytest.mark.parametrize("function,args,wrt", CASES)
def test_value_and_grad_vjp_and_jvp_return_fs_value(function, args, wrt, optimize):
    check_values(function, fresh(args), wrt, optimize=optimize)


@pytest.mark.parametrize("function,args,wrt", CASES)
def test_forward_and_reverse_agree(function, args, wrt):
    """``<u, J v> == <J^T u, v>`` with both sides from srcad."""
    check_forward_reverse(function, fresh(args), wrt)


# --------------------------------------------------------------------------
# raise: the derivative raises as f does

RAISING = [(r_guard, (V3 * 40.0,), ValueError), (r_in_loop, (V3 * 10.0,), OverflowError),
           (r_else_arm, (V3 - 20.0,), ArithmeticError), (r_in_helper, (V3 - 9.0,), ValueError),
           (t_reraise, (V3, True), np.linalg.LinAlgError)]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,args,error", RAISING, ids=[r[0].__name__ for r in RAISING])
def test_derivative_raises_what_f_raises(function, args, error, mode):
    with pytest.raises(error) as expected:
        function(*fresh(args))
    derivative = srcad.autodiff(function, 0, mode=mode)
    extra = [1.0] if mode == "reverse" else [np.ones_like(args[0])]
    with pytest.raises(error) as raised:
        derivative(*fresh(args), *extra)
    assert type(raised.value) is type(expected.value)
    assert str(raised.value) == str(expected.value)


FINALLY_CASES = [(t_finally_when_raising, (V3 - 5.0,), [1]), (t_finally_after_handlers, (V3 * 10.0,), [2]),
                 (t_finally_in_loop, (V3 * 0.0 + 20.0,), [0, 1]),
                 (t_finally_after_a_handler_raises, (V3,), [-1, 3]),
                 (t_finally_after_a_handler_raises, (-np.abs(V3) - 20.0,), [-1, 3]),
                 (t_finally_after_a_handler_raises, (np.abs(V3) + 200.0,), [3])]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,args,ran", FINALLY_CASES,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(FINALLY_CASES)])
def test_finally_runs_before_an_exception_leaves(function, args, ran, mode):
    """The forward sweep behaves as f: the ``finally`` clause runs, then the same exception leaves."""
    FINALLY_RAN.clear()
    with np.errstate(all="ignore"), pytest.raises(Exception) as expected:
        function(*fresh(args))
    assert FINALLY_RAN == ran
    FINALLY_RAN.clear()
    derivative = srcad.autodiff(function, 0, mode=mode)
    extra = [1.0] if mode == "reverse" else [np.ones_like(args[0])]
    with np.errstate(all="ignore"), pytest.raises(Exception) as raised:
        derivative(*fresh(args), *extra)
    assert FINALLY_RAN == ran
    assert type(raised.value) is type(expected.value) and str(raised.value) == str(expected.value)


# --------------------------------------------------------------------------
# try: what the generated code looks like, and exceptions a derivative raises


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_only_fs_statement_runs_inside_the_generated_try(mode):
    text = srcad.source(t_cholesky_jitter, mode=mode)
    head = text.index("    try:\n")
    inside = text[head:text.index("    except np.linalg.LinAlgError", head)].splitlines()[1:]
    assert [line.strip() for line in inside if not line.strip().startswith("#")] == \
        ["L = np.linalg.cholesky(K)"], text
    assert "attempted" not in text and "attempt_end" not in text and "tape_length" not in text


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_derivatives_own_exception_is_not_taken_for_fs(mode):
    """At t = 0, sqrt runs but its derivative divides by zero: the handler (derivative -1) must not run."""
    derivative = srcad.autodiff(t_catch_all, 0, mode=mode)
    try:
        value = derivative(0.0, 1.0)
    except ZeroDivisionError:
        return
    assert value != -1.0 and not np.isfinite(value), value


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_handler_reads_values_computed_before_the_exception(mode):
    x = V3.copy()
    gradient = srcad.grad(t_body_ran_before)(x) if mode == "reverse" else np.array(
        [srcad.autodiff(t_body_ran_before, mode="forward")(x, np.eye(3)[k]) for k in range(3)])
    expected = 384.0 * x ** 5 + 2.0   # d/dx [sum((4 x^2)^3) + sum(2 x)]
    np.testing.assert_allclose(gradient, expected, rtol=1e-12)


def test_a_loop_of_attempts_records_each_outcome():
    """Reverse mode: every iteration's path is saved, and the tape is empty at the end."""
    x = np.array([0.3, -0.4, 0.7, -1.2, 2.0])
    gradient = srcad.grad(t_per_element)(x)
    expected = np.where(x > 0, np.log(np.abs(x)) + 1.0, -2.0 * x)
    np.testing.assert_allclose(gradient, expected, rtol=1e-12)


# --------------------------------------------------------------------------
# with


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_with_blocks_stay_around_fs_statements(mode):
    text = srcad.source(w_errstate, mode=mode)
    assert "with np.errstate(divide='ignore', invalid='ignore'):" in text, text
    text = srcad.source(w_warnings_and_timer, mode=mode)
    assert "with warnings.catch_warnings():" in text and "with unsuppressed(Timer()) as timer:" in text, text
    assert "entered" not in text and "exited" not in text


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_manager_that_swallows_an_exception_is_an_error(mode):
    derivative = srcad.autodiff(w_swallowing, 0, mode=mode)
    extra = [1.0] if mode == "reverse" else [np.ones(3)]
    with pytest.raises(srcad.SrcadError, match="swallowed ZeroDivisionError"):
        derivative(V3.copy(), 0.0, *extra)


def w_manager_of_differentiated_value(x):
    with Scaled(x):
        y = x * 2.0
    return np.sum(y)


class Scaled:
    def __init__(self, value):
        self.value = value

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# --------------------------------------------------------------------------
# exactness of sums and sorts


def test_generator_sum_is_exact():
    x, w = np.array([0.1, 0.2, 0.3]), np.array([1.0 / 3.0, 0.7, -2.9])
    dx, dw = srcad.grad(g_sum, wrt=(0, 1))(x, w)
    assert np.array_equal(dx, w) and np.array_equal(dw, x)
    tangent = srcad.autodiff(g_sum, (0, 1), mode="forward")(x, w, np.array([1.0, 0.0, 0.0]), np.zeros(3))
    assert tangent == w[0]


def sorted_smallest(x):
    return sorted(v * 1.0 for v in x)[0]


def test_sorted_moves_derivatives_with_the_items():
    x = np.array([0.4, -0.3, 0.9])
    np.testing.assert_array_equal(srcad.grad(sorted_smallest)(x), [0.0, 1.0, 0.0])
    assert srcad.autodiff(sorted_smallest, mode="forward")(x, np.array([5.0, 7.0, 11.0])) == 7.0


# --------------------------------------------------------------------------
# refusals: the user's line, the construct and a fix


def u_nested_try(x):
    try:
        try:  # inside another
            y = x * 2.0
        except ValueError:
            y = x
    except TypeError:
        y = x
    return y


def u_del_item(x):
    ys = [x, x * 2.0]
    del ys[0]
    return ys[0]


def u_set_of_values(x):
    values = {v * 2.0 for v in x}
    return sum(values)


def u_return_inside_with(x):
    with np.errstate(all="ignore"):
        if x[0] > 0:
            return x * 2.0
        y = x
    return y


def u_kept_generator(x):
    squares = (v * v for v in x)
    return sum(squares) + max(squares)   # consumed twice: max gets nothing


def u_sorted_key(x):
    return sorted(x, key=abs)[0]


def u_read_after_del(x):
    y = x * 2.0
    del y
    return y  # read after del


def u_exception_from_a_variable(x):
    errors = (ValueError, TypeError)
    try:
        y = x * 2.0
    except errors:
        y = x
    return y



def u_partial_passed_on(x):
    weigh = functools.partial(scaled_power, c=2.0)
    return sum(map(weigh, x))



def u_insert_into_a_shared_list(x):
    ys = [x]
    zs = ys
    ys.insert(0, x * 2.0)
    return zs[1]


def u_insert_into_a_held_list(x):
    ys = [x]
    box = {"ys": ys}
    ys.insert(0, x * 2.0)
    return box["ys"][0]



def u_insert_then_change_in_place(x):
    h = [x, np.sin(x)]
    h.insert(1, x * x)
    x *= 2.0
    return np.sum(h[0] + x)


UNSUPPORTED = [
    (u_nested_try, "try:  # inside", "try"),
    (u_del_item, "del ys", "del"),
    (u_set_of_values, "{v * 2.0", "set"),
    (u_return_inside_with, "return x * 2.0", "with"),
    (u_kept_generator, "(v * v", "generator"),
    (u_sorted_key, "sorted(x", "key="),
    (u_read_after_del, "y  # read", "del"),
    (u_exception_from_a_variable, "errors:", "exception type"),
    (w_manager_of_differentiated_value, "Scaled(x):", "differentiated"),
    (u_partial_passed_on, "weigh, x", "partial"),
    (u_insert_into_a_shared_list, "ys.insert", "no other name"),
    (u_insert_into_a_held_list, "ys.insert", "no other name"),
    (u_insert_then_change_in_place, "h.insert", "in place"),
]


def _place(function, needle):
    import inspect
    lines, first = inspect.getsourcelines(function)
    text = "".join(lines)
    offset = text.index(needle)
    line = first + text[:offset].count("\n")
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,needle,word", UNSUPPORTED, ids=[u[0].__name__ for u in UNSUPPORTED])
def test_refusals_name_the_line_the_construct_and_a_fix(function, needle, word, mode):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.source(function, mode=mode)
    message = str(info.value)
    line, column = _place(function, needle)
    assert message.splitlines()[0] == f"{THIS_FILE}:{line}:{column}", f"expected the place of {needle!r}:\n{message}"
    explanation = " ".join(message.splitlines()[3:])
    assert word in explanation, message
    what, _, fix = explanation.partition("; ")
    assert what and len(fix) > 10, message


def u_store_into_what_a_loop_iterates(x):
    s = 0.0
    for v in list(x):
        x[0] = v
        s = s + v
    return s


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_refusal_names_the_users_code_not_srcads_names(mode):
    """The list a loop iterates over is a value srcad names itself: the message quotes the line instead."""
    with pytest.raises(srcad.AliasingError) as info:
        srcad.source(u_store_into_what_a_loop_iterates, mode=mode)
    message = str(info.value)
    line, _ = _place(u_store_into_what_a_loop_iterates, "for v in list(x)")
    assert f"line {line} (`for v in list(x):`)" in message, message
    assert "`x.copy()`" in message and "items" not in message and "item_" not in message, message
    compile("for v in list(x.copy()):\n    pass\n", "fix", "exec")


# --------------------------------------------------------------------------
# containers to order four: srcad differentiating its own generated code


def o_sorted(x):
    ys = [x * 2.0, np.sin(x), x * x]
    ys = sorted(ys)
    return ys[0] * ys[1] + np.exp(ys[2])


def o_sorted_by_hand(x, order):
    """x² sin x + e^{2x} (the sorted order near x = 0.7), and its derivatives written out."""
    s, c, e = np.sin(x), np.cos(x), np.exp(2.0 * x)
    return [x * x * s + e, 2 * x * s + x * x * c + 2 * e, 2 * s + 4 * x * c - x * x * s + 4 * e,
            6 * c - 6 * x * s - x * x * c + 8 * e, -12 * s - 8 * x * c + x * x * s + 16 * e][order]


def o_list_made_in_f(x):
    ys = []
    for i in range(3):
        ys.append(x * (i + 1.0))
    ys.append(np.sin(x))
    return ys[0] * ys[1] + ys[3] * ys[2]


def o_list_made_in_f_by_hand(x, order):
    """2x² + 3x sin x, and its derivatives written out (an insert is differentiated twice only: the third
    derivative of ``ys.insert`` is refused with an AliasingError, see the README)."""
    s, c = np.sin(x), np.cos(x)
    return [2 * x * x + 3 * x * s, 4 * x + 3 * s + 3 * x * c, 4 + 6 * c - 3 * x * s,
            -9 * s - 3 * x * c, -12 * c + 3 * x * s][order]


ORDERS = [(o_sorted, o_sorted_by_hand, order) for order in (1, 2, 3, 4)] + [
    (o_list_made_in_f, o_list_made_in_f_by_hand, order) for order in (1, 2, 3)]   # order 4: see the README


@pytest.mark.parametrize("function,by_hand,order", ORDERS, ids=[f"{f.__name__}-{n}" for f, _, n in ORDERS])
def test_containers_differentiate_to_order_four(function, by_hand, order):
    """srcad's order-``order`` derivative against central differences of the order below, written by hand."""
    derivative = function
    for _ in range(order):
        derivative = srcad.grad(derivative)
    x, step = 0.7, 1e-6
    below = [by_hand(x + sign * step, order - 1) for sign in (1, -1)]
    assert np.isclose(derivative(x), (below[0] - below[1]) / (2 * step), rtol=1e-6)
    assert np.isclose(derivative(x), by_hand(x, order), rtol=1e-10)
    assert np.isclose(by_hand(x, 0), function(x), rtol=1e-12)
