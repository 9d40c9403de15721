# srcad 0.1.0: reverse-mode derivative of logistic_map (golden_functions.py:47) with respect to l
from srcad.runtime import check_seed, copied


def dlogistic_map(l, n, dl=1.0):
    tape = []
    # for i in range(n):
    for i in range(n):
        # l = 4.0 * l * (1.0 - l)
        t4_times_l = 4.0 * l
        t1_minus_l = 1.0 - l
        l = t4_times_l * t1_minus_l
        tape.append(t4_times_l)
        tape.append(t1_minus_l)
    dl = check_seed(l, dl)
    # for i in range(n):
    for i in reversed(range(n)):
        # l = 4.0 * l * (1.0 - l)
        t1_minus_l = tape.pop()
        t4_times_l = tape.pop()
        dl = 4.0 * (dl * t1_minus_l) - t4_times_l * dl
    return copied(dl)
