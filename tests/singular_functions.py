"""The functions of ``test_singularities.py``: each one uses a rule at a point where the rule's formula
is 0/0, 0 * inf or 1/0 (srcad reads their source, so they live in a module of their own).
"""
import math

import numpy as np
from scipy import special

ZEROS = np.zeros(3)
EXPONENTS = np.array([0.0, 1.0, 2.0, 3.0])   # not literals: the power rules' general path



def var_of_rows(x):
    return np.sum(np.var(x, axis=1))


def std_of_rows(x):
    return np.sum(np.std(x, axis=1))


def std_all(x):
    return np.std(x)


def std_keepdims(x):
    return np.sum(np.std(x, axis=1, keepdims=True) * np.array([[1.0], [2.0], [3.0]]))


def var_ddof(x):
    return np.var(x, ddof=2)


def std_ddof(x):
    return np.std(x, ddof=1)


def nanvar_of_rows(x):
    return np.sum(np.nanvar(x, axis=1))


def nanstd_of_rows(x):
    return np.sum(np.nanstd(x, axis=1))


def nanstd_ddof(x):
    return np.sum(np.nanstd(x, axis=1, ddof=1))


def power_0(x):
    return x ** 0


def power_1(x):
    return x ** 1


def power_2(x):
    return x ** 2


def power_3(x):
    return x ** 3


def sum_power_0(x):
    return np.sum(x ** 0)


def sum_squares(x):
    return np.sum(x ** 2)


def sum_cubes(x):
    return np.sum(x ** 3)


def np_power_0(x):
    return np.sum(np.power(x, 0.0))


def zero_to_the(y):
    return np.sum(np.power(0.0, y))


def float_zero_to_the(y):
    return 0.0 ** y


def power_variable_exponents(x):
    return np.sum(x ** EXPONENTS)


def power_both(x, y):
    return np.sum(x ** y)


def power_scalars(x, y):
    return x ** y


def square_root_power(x):
    return np.sum(x ** 0.5)


def math_pow_0(x):
    return math.pow(x, 0.0)


def math_pow_2(x):
    return math.pow(x, 2.0)


def math_zero_to_the(y):
    return math.pow(0.0, y)


def float_power_0(x):
    return np.sum(np.float_power(x, 0))


def float_power_zero_to_the(y):
    return np.sum(np.float_power(0.0, y))


def xlogy_in_y(y):
    return np.sum(special.xlogy(ZEROS, y))


def xlogy_both(x, y):
    return np.sum(special.xlogy(x, y))


def xlog1py_in_y(y):
    return np.sum(special.xlog1py(ZEROS, y))


def rel_entr_in_y(y):
    return np.sum(special.rel_entr(ZEROS, y))


def kl_div_in_y(y):
    return np.sum(special.kl_div(ZEROS, y))


def entr(x):
    return np.sum(special.entr(x))


def sinc(x):
    return np.sum(np.sinc(x))


def norm(x):
    return np.linalg.norm(x)


def norm_3(x):
    return np.linalg.norm(x, 3)


def norm_fro(x):
    return np.linalg.norm(x, "fro")


def norm_of_rows(x):
    return np.sum(np.linalg.norm(x, axis=1))


def hypot(x, y):
    return np.sum(np.hypot(x, y))


def math_hypot(x, y):
    return math.hypot(x, y)


def arctan2(y, x):
    return np.sum(np.arctan2(y, x))


def absolute(x):
    return np.sum(np.abs(x))


def maximum(x, y):
    return np.sum(np.maximum(x, y))


def minimum(x, y):
    return np.sum(np.minimum(x, y))


def builtin_max(a, b):
    return max(a, b)


def exp2(x):
    return np.sum(np.exp2(x))


def log1p(x):
    return np.sum(np.log1p(x))


def square_root(x):
    return np.sum(np.sqrt(x))
