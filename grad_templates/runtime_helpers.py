"""Rules for srcad's own runtime helpers, so generated derivatives can be differentiated again.

Generated code calls ``check_seed``, ``unbroadcast``, ``broadcast_like``,
``unreduce`` and ``copied``; with these rules ``srcad.grad(srcad.grad(f))`` and
forward-over-reverse Hessians differentiate that code like any other.  Each
helper is linear in the derivative it moves, so its rules only move
derivatives the other way.  Helpers that compute masks, counts or zeros carry
no derivative.
"""
import numpy as np

from srcad import runtime
from srcad.runtime import broadcast_like, unbroadcast, unreduce
from srcad.templates import adjoint, d, nondifferentiable, tangent


@adjoint(runtime.check_seed)
def check_seed_adjoint(y, out, seed):
    d[seed] = d[y]


@tangent(runtime.check_seed)
def check_seed_tangent(y, out, seed):
    d[y] = d[seed]


@adjoint(runtime.unbroadcast)
def unbroadcast_adjoint(y, grad, like):
    d[grad] = broadcast_like(d[y], grad)


@tangent(runtime.unbroadcast)
def unbroadcast_tangent(y, grad, like):
    d[y] = unbroadcast(d[grad], like)


@adjoint(runtime.broadcast_like)
def broadcast_like_adjoint(y, tangent, like):
    d[tangent] = unbroadcast(d[y], tangent)


@tangent(runtime.broadcast_like)
def broadcast_like_tangent(y, tangent, like):
    d[y] = broadcast_like(d[tangent], like)


@adjoint(runtime.unreduce)
def unreduce_adjoint(y, grad, like, axis=None, keepdims=False):
    if axis is None:
        d[grad] = unbroadcast(d[y], grad)
    else:
        d[grad] = np.sum(d[y], axis=axis, keepdims=keepdims)


@tangent(runtime.unreduce)
def unreduce_tangent(y, grad, like, axis=None, keepdims=False):
    d[y] = unreduce(d[grad], like, axis=axis, keepdims=keepdims)


@adjoint(runtime.copied)
def copied_adjoint(y, value):
    d[value] = d[y]


@tangent(runtime.copied)
def copied_tangent(y, value):
    d[y] = d[value]


nondifferentiable(runtime.zeros_like, runtime.reduced_count, runtime.maximum_share, runtime.fmax_share,
                  runtime.fmin_share, runtime.clip_share, runtime.transpose_axes_inverse,
                  reason="it computes zeros, counts or masks")
