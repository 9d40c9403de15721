"""Objects (issue [language] item 1): methods, attributes that hold functions, gradients with respect to
attributes and to objects.

Contract:
- ``ROWS`` is the spec table: a function (a bound method, a plain function), its arguments and ``wrt``
  (positions, parameter names, attribute paths such as ``'self.W'``, ``'self'`` or containers passed as
  arguments).  For every row, in both modes, srcad's derivative matches central finite differences along
  random directions (``check_sites``: attributes and container fields are moved in place, then restored),
  gradients of containers have their container's type, and ``value_and_grad`` returns f's value.
- Rebinding what an object holds between two calls (``self.act = np.sin``, a list element, a method on the
  class, an instance attribute hiding a method) gives the new derivative on the next call.
- ``REFUSALS`` raise a ``SrcadError`` naming the user's line and column, the construct, and a fix.
Nothing here is skipped or marked xfail.
"""
import dataclasses
import functools
import inspect
import os
import types

import numpy as np
import pytest

import srcad

from gradcheck import no_disk_cache  # noqa: F401 (autouse fixture)
from gradcheck import EPS, FD_RTOL
import objects_elsewhere

THIS_FILE = os.path.abspath(__file__)
RNG = np.random.default_rng(7)
W0 = np.array([[0.9, -0.4], [0.3, 0.7]])
B0 = np.array([0.1, -0.2])
X = np.array([0.3, -0.5])


# ==========================================================================
# the corpus


def square_sum(v):
    return np.sum(v * v)


class Dense:
    """A layer of this module: its methods are inlined."""

    def __init__(self, W, b, act=np.tanh):
        self.W, self.b, self.act = W, b, act

    def __call__(self, x):
        return self.act(self.W @ x + self.b)


class Net:
    """MindSpore-style: operations and layers are attributes, ``construct`` calls them."""

    def __init__(self):
        self.W, self.b = W0.copy(), B0.copy()
        self.sin, self.cos, self.act = np.sin, np.cos, np.tanh
        self.helper = square_sum
        self.dense = Dense(W0.T.copy(), B0[::-1].copy())
        self.same = [Dense(W0.copy(), B0.copy()), Dense(0.5 * W0, B0.copy())]
        self.mixed = [Dense(W0.copy(), B0.copy()), Dense(0.5 * W0, B0.copy(), act=np.sin)]
        self.outer = objects_elsewhere.Layer(W0.copy(), B0.copy())
        self.runner = objects_elsewhere.Scaled(0.8)

    def construct(self, x):
        h = self.sin(self.W @ x) + self.cos(self.b)
        return np.sum(self.dense(h) ** 2)

    def forward(self, x):
        return self.act(self.W @ x + self.b)

    def loss(self, x):
        return np.sum(self.forward(x) ** 2)

    def first(self, x):
        return self.second(x) * 2.0

    def second(self, x):
        return np.exp(self.W @ x)

    def chain(self, x):
        return np.sum(self.first(x))

    @staticmethod
    def sq(v):
        return v * v

    @classmethod
    def make(cls, v):
        return cls.sq(v) + 1.0

    @property
    def spread(self):
        return np.sum(self.W * self.W)

    def statics(self, x):
        return np.sum(self.sq(x) + Net.sq(x) + self.make(x))

    def uses_property(self, x):
        return np.sum(np.sin(x) * self.spread)

    def held_helper(self, x):
        return self.helper(np.sin(x))

    def same_layers(self, x):
        for layer in self.same:
            x = layer(x)
        return np.sum(x)

    def mixed_layers(self, x):
        for layer in self.mixed:
            x = layer(x)
        return np.sum(x ** 2)

    def elsewhere(self, x):
        return np.sum(self.outer(x)) + self.outer.energy(x)

    def runs(self, x):
        return np.sum(self.runner.run(x, steps=2))

    def alias(self, x):
        forward = self.forward
        layer = self.same[1]
        return np.sum(forward(x) * layer(x))

    def scaled(self, x, k=2.0):
        if k > 1.0:
            return self.W @ x * k
        return self.W @ x

    def keywords(self, x):
        return np.sum(self.scaled(x, k=3.0) + self.scaled(x))

    def no_layers(self, x):
        return np.sum(self.forward(x)) + np.sum(self.dense(x))


class Tanh:
    def __call__(self, x):
        return np.tanh(x)


class Sequential:
    """MindSpore's SequentialCell: cells of different classes, called in turn."""

    def __init__(self):
        self.cells = [Dense(W0.copy(), B0.copy()), Tanh(), objects_elsewhere.Layer(0.5 * W0, B0.copy()), np.sin]

    def construct(self, x):
        for cell in self.cells:
            x = cell(x)
        return np.sum(x ** 2)


class Child(Net):
    def forward(self, x):
        return super().forward(x) * 2.0 + np.sin(x)


NET = Net()


def global_object(x):
    return NET.construct(x) + np.sum(NET.forward(x))


def bound_in_a_global(x):
    return np.sum(FORWARD(x))


FORWARD = NET.forward
PARTIAL_METHOD = functools.partial(Net.scaled, NET, k=0.5)


def partial_of_method(x):
    return np.sum(PARTIAL_METHOD(x))


@dataclasses.dataclass
class Params:
    W: np.ndarray
    b: np.ndarray
    name: str = "p"
    steps: int = 2


@dataclasses.dataclass(frozen=True)
class Frozen:
    W: np.ndarray
    scale: float


@dataclasses.dataclass
class Outer:
    inner: Params
    gain: float


class Pair:
    """A registered container: its fields are read as attributes."""

    def __init__(self, W, b):
        self.W, self.b = W, b


srcad.register_container(Pair, lambda p: ({"W": p.W, "b": p.b}, None), lambda aux, fields: Pair(**fields))


def predict(p, x):
    return np.tanh(p.W @ x + p.b)


def params_loss(params, x):
    return np.sum(predict(params, x) ** 2)


def frozen_loss(frozen, x):
    return np.sum(np.sin(frozen.W @ x) * frozen.scale)


def outer_loss(outer, x):
    return np.sum(predict(outer.inner, x)) * outer.gain


def namespace_loss(ns, x):
    return np.sum(ns.W @ x) + ns.c * np.sum(x)


class Small:
    """An object whose float fields are all differentiated (``wrt='self'``)."""

    def __init__(self):
        self.W, self.b, self.gain, self.act = W0.copy(), B0.copy(), 1.5, np.tanh

    def loss(self, x):
        return np.sum(self.act(self.W @ x + self.b)) * self.gain


SMALL = Small()


def row(function, *args, wrt=0, label=""):
    name = getattr(function, "__qualname__", None) or getattr(getattr(function, "func", None), "__qualname__", "f")
    return pytest.param(function, args, wrt, id=name + (f"-{label}" if label else ""))


NET_ROWS = [row(getattr(NET, name), X) for name in (
    "construct", "loss", "chain", "statics", "uses_property", "held_helper", "same_layers", "mixed_layers",
    "elsewhere", "runs", "alias", "keywords")]
ROWS = NET_ROWS + [
    row(Child().loss, X),
    row(Sequential().construct, X),
    row(global_object, X),
    row(bound_in_a_global, X),
    row(partial_of_method, X),
    row(PARTIAL_METHOD, X, label="as-f"),
    row(Net.make, X, label="classmethod-as-f"),
    row(NET.construct, X, wrt="self.W"),
    row(NET.construct, X, wrt=("self.W", "self.b", "x"), label="three"),
    row(NET.construct, X, wrt="self.dense.W", label="nested"),
    row(NET.loss, X, wrt=("self.W", "self.b"), label="inlined-method"),
    row(NET.uses_property, X, wrt="self.W", label="property"),
    row(NET.alias, X, wrt=("self.W", "x"), label="alias"),
    row(NET.no_layers, X, wrt="self.dense.b", label="nested-alias"),
    row(SMALL.loss, X, wrt="self", label="whole"),
    row(SMALL.loss, X, wrt=("self", "x"), label="whole-and-x"),
    row(params_loss, Params(W0.copy(), B0.copy()), X, wrt=(0, 1), label="dataclass"),
    row(params_loss, Params(W0.copy(), B0.copy()), X, wrt="params.W", label="field"),
    row(params_loss, Pair(W0.copy(), B0.copy()), X, wrt="params", label="registered"),
    row(frozen_loss, Frozen(W0.copy(), 0.7), X, label="frozen"),
    row(outer_loss, Outer(Params(W0.copy(), B0.copy()), 1.3), X, label="nested"),
    row(outer_loss, Outer(Params(W0.copy(), B0.copy()), 1.3), X, wrt="outer.inner.b", label="nested-field"),
    row(namespace_loss, types.SimpleNamespace(W=W0.copy(), c=0.4, tag="t"), X, wrt=(0, 1), label="namespace"),
]


# ==========================================================================
# checking against finite differences, attributes and containers included


class Site:
    """One ``wrt`` entry: where its value lives, and how to move it by ``h * direction`` (and back)."""

    def __init__(self, function, args, entry):
        parameters = list(inspect.signature(function).parameters)
        owner = getattr(function, "__self__", None) or getattr(getattr(function, "func", None), "__self__", None)
        if isinstance(entry, int):
            entry = parameters[entry]
        root, *path = entry.split(".")
        if root in parameters:
            self.holder, self.position = None, parameters.index(root)
            base = args[self.position]
        else:   # the bound method's object
            self.holder, self.position, base = owner, None, owner
        self.path = path
        self.base = base
        self.value = self._read(base)

    def _read(self, base):
        for attribute in self.path:
            base = getattr(base, attribute)
        return base

    def moved(self, args, direction, h):
        """The arguments with this site moved (an object the call reads is changed in place: see ``restore``)."""
        if not self.path and self.position is not None:
            args = list(args)
            args[self.position] = add(self.value, direction, h)
            return tuple(args)
        target = self.base if self.path else None
        if not self.path:   # the bound object itself: move each float field in place
            for field, value in float_fields(self.value).items():
                setattr(self.value, field, add(value, float_fields(direction)[field], h))
            return args
        for attribute in self.path[:-1]:
            target = getattr(target, attribute)
        object.__setattr__(target, self.path[-1], add(self.value, direction, h))
        return args

    def restore(self):
        if not self.path and self.position is not None:
            return
        if not self.path:
            for field, value in self._saved.items():
                setattr(self.value, field, value)
            return
        target = self.base
        for attribute in self.path[:-1]:
            target = getattr(target, attribute)
        object.__setattr__(target, self.path[-1], self.value)

    def save(self):
        self._saved = dict(float_fields(self.value)) if not self.path and self.position is None else {}


def is_object(value) -> bool:
    return dataclasses.is_dataclass(value) or isinstance(value, (Pair, Small, Net, types.SimpleNamespace))


def float_fields(value):
    fields = vars(value) if not dataclasses.is_dataclass(value) else {f.name: getattr(value, f.name)
                                                                       for f in dataclasses.fields(value)}
    return {name: field for name, field in fields.items()
            if isinstance(field, (float, np.ndarray)) or is_object(field)}


def add(value, direction, h):
    """``value + h * direction``, field by field for objects (a copy: the caller's object is not changed)."""
    if is_object(value):
        new = types.SimpleNamespace(**vars(value)) if isinstance(value, types.SimpleNamespace) else \
            Pair(value.W, value.b) if isinstance(value, Pair) else dataclasses.replace(value) \
            if dataclasses.is_dataclass(value) else value
        for field, held in float_fields(value).items():
            object.__setattr__(new, field, add(held, float_fields(direction)[field], h))
        return new
    if isinstance(value, float):
        return value + h * float(direction)
    return value + h * direction


def random_like(value):
    if is_object(value):
        new = add(value, value, 0.0)
        for field, held in float_fields(value).items():
            object.__setattr__(new, field, random_like(held))
        return new
    return float(RNG.standard_normal()) if isinstance(value, float) else RNG.standard_normal(np.shape(value))


def flat(value):
    """The floats of ``value`` (objects: their float fields), in a fixed order."""
    if is_object(value):
        return np.concatenate([flat(held) for _, held in sorted(float_fields(value).items())] or [np.zeros(0)])
    return np.ravel(np.asarray(value, dtype=float))


def directional(function, args, sites, directions):
    """``(f(x + h v) - f(x - h v)) / 2h`` with every site moved, in float64."""
    h = EPS * max([1.0] + [float(np.max(np.abs(flat(site.value)))) for site in sites])
    values = []
    for sign in (1.0, -1.0):
        moved = args
        for site, direction in zip(sites, directions):
            site.save()
            moved = site.moved(moved, direction, sign * h)
        try:
            values.append(np.asarray(function(*moved), dtype=float))
        finally:
            for site in sites:
                site.restore()
    return (values[0] - values[1]) / (2.0 * h)


def check_sites(function, args, wrt, mode):
    entries = wrt if isinstance(wrt, tuple) else (wrt,)
    sites = [Site(function, args, entry) for entry in entries]
    directions = [random_like(site.value) for site in sites]
    expected = directional(function, args, sites, directions)
    scale = max(1.0, float(np.max(np.abs(expected))))
    if mode == "forward":
        got = srcad.autodiff(function, wrt, mode="forward")(*args, *directions)
        np.testing.assert_allclose(got, expected, rtol=FD_RTOL, atol=FD_RTOL * scale)
        return
    seed = random_like(np.asarray(function(*args), dtype=float))
    seed = float(seed) if np.ndim(seed) == 0 else seed
    grads = srcad.autodiff(function, wrt, mode="reverse")(*args, seed)
    grads = grads if isinstance(wrt, tuple) else (grads,)
    for site, gradient in zip(sites, grads):
        assert type(gradient) is type(site.value) or not is_object(site.value), (
            f"the gradient of {type(site.value).__name__} is a {type(gradient).__name__}")
        assert flat(gradient).shape == flat(site.value).shape
    total = sum(float(flat(g) @ flat(d)) for g, d in zip(grads, directions))
    projected = float(flat(seed) @ flat(expected))
    assert abs(total - projected) <= FD_RTOL * scale * (1.0 + float(np.max(np.abs(seed)))), (total, projected)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,args,wrt", ROWS)
def test_matches_finite_differences(function, args, wrt, mode):
    check_sites(function, args, wrt, mode)


@pytest.mark.parametrize("function,args,wrt", ROWS)
def test_value_and_grad_returns_fs_value(function, args, wrt):
    expected = function(*args)
    value, _ = srcad.value_and_grad(function, wrt)(*args, np.ones_like(expected))
    np.testing.assert_allclose(value, expected, rtol=1e-12)


# ==========================================================================
# what an object holds is watched: rebinding it between calls gives the new derivative


def finite_gradient(function, x):
    h = EPS * max(1.0, float(np.max(np.abs(x))))
    return np.array([(function(x + h * e) - function(x - h * e)) / (2.0 * h) for e in np.eye(x.size)])


def swap_activation(net):
    net.act = np.sin


def swap_layer(net):
    net.same[0] = Dense(W0 * 1.5, B0.copy(), act=np.sin)


def grow_layers(net):
    net.same.append(Dense(W0.copy(), -B0))


def hide_method(net):
    net.forward = lambda x: np.cos(x) * 3.0


def swap_dense_activation(net):
    net.dense.act = np.arctan


def swap_helper(net):
    net.helper = np.sum


REBINDINGS = [("loss", swap_activation), ("same_layers", swap_layer), ("same_layers", grow_layers),
              ("loss", hide_method), ("construct", swap_dense_activation), ("held_helper", swap_helper),
              ("mixed_layers", swap_layer)]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("method,change", REBINDINGS, ids=[f"{m}-{c.__name__}" for m, c in REBINDINGS])
def test_rebinding_what_an_object_holds_gives_the_new_derivative(method, change, mode):
    net = Net()
    function = getattr(net, method)
    derivative = srcad.autodiff(function, mode=mode)

    def gradient():
        if mode == "reverse":
            return derivative(X, 1.0)
        return np.array([derivative(X, e) for e in np.eye(X.size)])

    np.testing.assert_allclose(gradient(), finite_gradient(function, X), rtol=1e-6, atol=1e-8)
    change(net)
    np.testing.assert_allclose(gradient(), finite_gradient(function, X), rtol=1e-6, atol=1e-8)


def test_rebinding_a_method_on_the_class_gives_the_new_derivative(monkeypatch):
    net = Net()
    derivative = srcad.grad(net.loss)
    np.testing.assert_allclose(derivative(X), finite_gradient(net.loss, X), rtol=1e-6)
    monkeypatch.setattr(Net, "forward", lambda self, x: np.sin(self.W @ x))
    np.testing.assert_allclose(derivative(X), finite_gradient(net.loss, X), rtol=1e-6)


def test_a_derivative_per_object_of_a_method_called_through_its_derivative():
    """``Layer`` is of another module: its method's derivative is made per object, each with its own act."""
    net = Net()
    derivative = srcad.grad(net.elsewhere)
    first = derivative(X)
    net.outer = objects_elsewhere.Layer(W0.copy(), B0.copy(), act=np.sin)
    np.testing.assert_allclose(derivative(X), finite_gradient(net.elsewhere, X), rtol=1e-6)
    assert not np.allclose(first, derivative(X))
    assert "per_receiver=True" in srcad.source(net.elsewhere)


# ==========================================================================
# the generated code reads what it reads from the object at run time


def test_attributes_holding_functions_stay_as_written():
    text = srcad.source(NET.construct)
    assert "self.sin(self_W_at_x)" in text and "self.cos(self.b)" in text
    assert "np.cos(self_W_at_x)" in text   # the derivative of what self.sin held when it was built


def test_an_attribute_named_in_wrt_is_read_once_at_the_top():
    text = srcad.source(NET.construct, wrt=("self.W", "x"))
    body = text.split("def dconstruct(self, x, dout=1.0):\n")[1]
    assert body.startswith("    self_W = self.W\n")
    assert "with respect to self.W, x" in text


# ==========================================================================
# refusals: the user's line, the construct and a fix


class Stateful:
    def __init__(self):
        self.W, self.count, self.acts = W0.copy(), 0, [np.tanh, np.sin]

    def counts(self, x):
        self.count += 1
        return np.sum(self.W @ x)

    def stores(self, x):
        self.W[0, 0] = x[0]
        return np.sum(self.W @ x)

    def sets(self, x):
        self.y = x * 2.0
        return np.sum(self.y)

    def acts_in_turn(self, x):
        for act in self.acts:
            x = act(x)
            if x[0] > 10.0:
                break
        return np.sum(x)

    def appends(self, x):
        acts = self.acts
        acts.append(np.cos)
        return np.sum(self.W @ x)

    def fills(self, x):
        self.W.fill(0.5)
        return np.sum(self.W @ x)

    def leaks(self, x):
        return objects_elsewhere.Layer.energy(self, x)

    def through_method(self, x):
        return np.sum(self.helper_of_elsewhere(x))

    def helper_of_elsewhere(self, x):
        return self.W @ x


STATEFUL = Stateful()
STATEFUL_UNBOUND = Stateful.counts


REFUSALS = [
    (STATEFUL.counts, (), "self.count += 1", "attribute", srcad.UnsupportedSyntaxError),
    (STATEFUL.stores, (), "self.W[0, 0] = x[0]", "attribute", srcad.UnsupportedSyntaxError),
    (STATEFUL.sets, (), "self.y = x * 2.0", "attribute", srcad.UnsupportedSyntaxError),
    (STATEFUL.acts_in_turn, (), "act(x)", "differ", srcad.UnsupportedSyntaxError),
    (STATEFUL.appends, (), "acts.append(np.cos)", "changes", srcad.UnsupportedSyntaxError),
    (STATEFUL.fills, (), "self.W.fill(0.5)", "changes", srcad.UnsupportedSyntaxError),
    (STATEFUL.leaks, ("self.W",), "self, x)\n", "used whole", srcad.UnsupportedSyntaxError),
    (Net.loss, (), "self.forward(x)", "bound method", srcad.UnsupportedSyntaxError),
]


def place(function, needle):
    lines, first = inspect.getsourcelines(function)
    for offset, text in enumerate(lines):
        if needle in text:
            return first + offset, text.index(needle) + 1
    raise AssertionError(f"{needle!r} is not in the source of {function.__qualname__}")


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("function,wrt,needle,word,error", REFUSALS, ids=[r[2].strip() for r in REFUSALS])
def test_refusals_name_the_line_the_construct_and_a_fix(function, wrt, needle, word, error, mode):
    with pytest.raises(error) as info:
        srcad.source(function, wrt=wrt[0] if wrt else 0, mode=mode)
    message = str(info.value)
    line, column = place(function, needle)
    assert message.splitlines()[0] == f"{THIS_FILE}:{line}:{column}", message
    explanation = " ".join(message.splitlines()[3:])
    assert word in explanation, message
    assert "NumPy function" not in explanation, message
    what, _, hint = explanation.partition("; ")
    assert what and len(hint) > 15, message


def test_objects_inside_a_list_are_not_differentiated_silently():
    with pytest.raises(srcad.WrtError, match="inside a list"):
        srcad.grad(NET.construct, wrt="self")(X)
    with pytest.raises(srcad.WrtError, match="holds no float"):
        srcad.grad(Sequential().construct, wrt=("x", "self.cells"))(X)


def test_an_attribute_store_message_says_how_to_keep_it_outside():
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.grad(STATEFUL.counts)(X)
    assert "self.count" in str(info.value) and "outside the differentiated function" in str(info.value)
    with pytest.raises(srcad.UnsupportedSyntaxError, match=r"W = self.W.copy\(\)"):
        srcad.grad(STATEFUL.stores)(X)


def test_a_partial_is_differentiated_not_refused():
    part = functools.partial(params_loss, x=X)
    gradient = srcad.grad(part)(Params(W0.copy(), B0.copy()))
    assert isinstance(gradient, Params)
    np.testing.assert_allclose(gradient.b, srcad.grad(params_loss, wrt="params.b")(Params(W0, B0), X))


def test_hessian_and_jacobian_of_a_bound_method():
    net = Net()
    hessian = srcad.hessian(net.loss)(X)
    h = 1e-5
    expected = np.array([(srcad.grad(net.loss)(X + h * e) - srcad.grad(net.loss)(X - h * e)) / (2 * h)
                         for e in np.eye(X.size)])
    np.testing.assert_allclose(hessian, expected, rtol=1e-5, atol=1e-7)
    jacobian = srcad.jacobian(net.forward)(X)
    np.testing.assert_allclose(jacobian, np.array([finite_gradient(lambda v: net.forward(v)[i], X) for i in range(2)]),
                               rtol=1e-6, atol=1e-8)
    with pytest.raises(srcad.WrtError, match="not attributes"):
        srcad.hessian(net.loss, wrt="self.W")


def test_an_optimiser_trains_a_dataclass_with_its_gradients():
    params, x = Params(W0.copy(), B0.copy(), name="kept"), X
    opt = srcad.optim.adam(lr=0.1)
    state = opt.init(params)
    start = params_loss(params, x)
    for _ in range(30):
        params, state = opt.update(params, srcad.grad(params_loss)(params, x), state)
    assert isinstance(params, Params) and params.name == "kept" and params.steps == 2
    assert params_loss(params, x) < 0.05 * start


def test_a_global_named_like_a_method_the_build_bound_does_not_stand_in_for_it(monkeypatch):
    """The generated module calls ``Layer.__call__`` under a name of its own (``Layer_call``): a global of
    that name, defined later, must not replace it when the module is loaded again."""
    assert "Layer_call" in srcad.source(NET.elsewhere)
    monkeypatch.setitem(globals(), "Layer_call", lambda layer, x: 0.0 * x)
    net = Net()
    np.testing.assert_allclose(srcad.grad(net.elsewhere)(X), finite_gradient(net.elsewhere, X), rtol=1e-6)
