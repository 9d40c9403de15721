# srcad 0.1.0: forward-mode derivative of logistic_map (golden_functions.py:47) with respect to l


def dlogistic_map(l, n, dl):
    # for i in range(n):
    for i in range(n):
        # l = 4.0 * l * (1.0 - l)
        t4_times_l = 4.0 * l
        t1_minus_l = 1.0 - l
        dl = 4.0 * dl * t1_minus_l - t4_times_l * dl
        l = t4_times_l * t1_minus_l
    return dl
