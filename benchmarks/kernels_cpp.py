"""Time srcad's generated C++ gradients against hand-written kernels, compiled together with ``g++ -O2``.

Run ``python benchmarks/kernels_cpp.py`` (needs g++; ``--cxx PATH`` picks another compiler,
``--flags`` other options).

Contract:
- For the course's gradient cases 4 (matrix product), 5 (batched
  contraction) and 6 (convolution) in ``tests/data/kernel_cases/grad`` it
  generates the C++ gradient twice (default gather form and ``--scatter``)
  and writes one harness with the hand-written kernels below, compiles it
  all in one ``g++ -O2 -falign-loops=32`` run and runs it once.  Loop
  alignment is fixed because without it identical machine code (case 4:
  g++ emits the same instructions for srcad's kernel and the hand-written
  one) measured 1.4x apart depending only on which file was linked first.
- The hand-written kernels do what a careful person writes: each gradient
  element gathered through loops whose bounds come from the index equations
  (no conditions inside the loops), a local accumulator with the reduction
  innermost, one store, no zeroing of arrays written once, the last
  dimension innermost.
- The harness fills the inputs from a fixed seed, checks that every kernel's
  result equals the hand-written one (error under 1e-5 of the largest
  element: the orders of multiplication and addition may differ), then
  times the kernels round-robin (each round calls one kernel as often as
  fits in about 1 ms; 41 rounds) and prints the fastest round's time per
  call in microseconds (other work on the machine only ever adds time) and
  the ratio to the hand-written kernel.  The target: generated within 1.2x
  of hand-written.
"""
import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from srcad.kernels import generate, gradient_params, load_case  # noqa: E402

CASES = ("case4", "case5", "case6")

HAND_WRITTEN = r"""
// Hand-written gradients: gather, bounds from the index equations, a local accumulator, one store.
void hand_case4(float (&B)[16][32], float (&C)[32][32], float (&dA)[16][32], float (&dB)[16][32],
                float (&dC)[32][32]) {
    for (int i = 0; i < 16; ++i) {              // dB[i][k] = sum_j dA[i][j] * C[k][j]
        for (int k = 0; k < 32; ++k) {
            float total = 0.0f;
            for (int j = 0; j < 32; ++j) total += dA[i][j] * C[k][j];
            dB[i][k] = total;
        }
    }
    for (int k = 0; k < 32; ++k) {              // dC[k][j] = sum_i dA[i][j] * B[i][k]
        for (int j = 0; j < 32; ++j) {
            float total = 0.0f;
            for (int i = 0; i < 16; ++i) total += dA[i][j] * B[i][k];
            dC[k][j] = total;
        }
    }
}

void hand_case5(float (&C)[32][32], float (&D)[4][32], float (&dA)[16][32], float (&dB)[16][32][4]) {
    for (int i = 0; i < 16; ++i) {              // dB[i][k][l] = sum_j dA[i][j] * C[k][j] * D[l][j]
        for (int k = 0; k < 32; ++k) {
            for (int l = 0; l < 4; ++l) {
                float total = 0.0f;
                for (int j = 0; j < 32; ++j) total += dA[i][j] * C[k][j] * D[l][j];
                dB[i][k][l] = total;
            }
        }
    }
}

void hand_case6(float (&C)[8][16][3][3], float (&dA)[2][8][5][5], float (&dB)[2][16][7][7]) {
    // dB[n][c][h][w] = sum over k, r, s with 0 <= h - r < 5 and 0 <= w - s < 5 of dA[n][k][h - r][w - s] * C[k][c][r][s]
    for (int n = 0; n < 2; ++n) {
        for (int c = 0; c < 16; ++c) {
            for (int h = 0; h < 7; ++h) {
                const int r_first = h - 4 > 0 ? h - 4 : 0, r_last = h < 2 ? h : 2;
                for (int w = 0; w < 7; ++w) {
                    const int s_first = w - 4 > 0 ? w - 4 : 0, s_last = w < 2 ? w : 2;
                    float total = 0.0f;           // k innermost: a fixed trip count (s innermost: 1.2x slower)
                    for (int r = r_first; r <= r_last; ++r)
                        for (int s = s_first; s <= s_last; ++s)
                            for (int k = 0; k < 8; ++k)
                                total += dA[n][k][h - r][w - s] * C[k][c][r][s];
                    dB[n][c][h][w] = total;
                }
            }
        }
    }
}
"""

HARNESS = r"""
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

struct Entry { std::string name; std::function<void()> run; std::vector<double> times; };

static double per_call_us(const std::function<void()> &run) {
    using clock = std::chrono::steady_clock;
    long calls = 1;
    for (;;) {                                   // calibrate: about 2 ms per round
        auto start = clock::now();
        for (long n = 0; n < calls; ++n) { run(); asm volatile("" ::: "memory"); }
        double spent = std::chrono::duration<double, std::micro>(clock::now() - start).count();
        if (spent > 1000.0) return spent / calls;
        calls *= 2;
    }
}

static double fastest(const std::vector<double> &values) {
    return *std::min_element(values.begin(), values.end());
}

template <size_t N> static void fill(float *data, std::mt19937 &gen) {
    std::uniform_real_distribution<float> uniform(-10.0f, 10.0f);
    for (size_t n = 0; n < N; ++n) data[n] = uniform(gen);
}

static bool same(const float *result, const float *expected, size_t count, const char *what) {
    double worst = 0.0, scale = 1.0;
    for (size_t n = 0; n < count; ++n) {
        scale = std::max(scale, std::fabs((double)expected[n]));
        worst = std::max(worst, std::fabs((double)result[n] - expected[n]));
    }
    worst /= scale;
    if (worst > 1e-5) { std::printf("%s: differs from the hand-written kernel (relative %g)\n", what, worst); return false; }
    return true;
}

int main() {
    std::mt19937 gen(2020);
BODY
    std::vector<Entry> entries = {ENTRIES};
    for (int round = 0; round < 41; ++round)
        for (auto &entry : entries) entry.times.push_back(per_call_us(entry.run));
    std::printf("%-8s %14s %14s %14s %9s\n", "case", "srcad us", "--scatter us", "by hand us", "ratio");
    for (size_t n = 0; n < entries.size(); n += 3) {
        double generated = fastest(entries[n].times), scatter = fastest(entries[n + 1].times);
        double hand = fastest(entries[n + 2].times);
        std::printf("%-8s %14.2f %14.2f %14.2f %8.2fx\n", entries[n].name.c_str(), generated, scatter, hand,
                    generated / hand);
    }
    return ok ? 0 : 1;
}
"""


def _declaration(name, params):
    args = ", ".join(f"float (&{p})" + "".join(f"[{d}]" for d in shape) if shape else f"float &{p}"
                     for p, shape in params)
    return f"void {name}({args});"


def build(directory: Path) -> list:
    """Write the generated sources and the harness into ``directory``; the source files to compile."""
    sources, declarations, body, entries = [], [], ["    bool ok = true;"], []
    for case in CASES:
        kernel = load_case(ROOT / "tests" / "data" / "kernel_cases" / "grad" / f"{case}.json")
        params = gradient_params(kernel)
        for suffix, gather in (("", True), ("_scatter", False)):
            code = generate(kernel, target="cpp", gather=gather)
            code = re.sub(rf"\b{kernel.name}(\w*)\(", rf"{kernel.name}\1{suffix}(", code)
            path = directory / f"{kernel.name}{suffix}.cc"
            path.write_text(code)
            sources.append(str(path))
            declarations.append(_declaration(f"{kernel.name}{suffix}", params))
        gradients = params[len(params) - len(kernel.grad_to):]
        for name, shape in params:
            size = 1
            for extent in shape:
                size *= extent
            dims = "".join(f"[{d}]" for d in shape)
            for variant in ("", "_scatter", "_hand") if (name, shape) in gradients else ("",):
                body.append(f"    static float {case}_{name}{variant}{dims};")
            if (name, shape) not in gradients:
                body.append(f"    fill<{size}>(&{case}_{name}" + "[0]" * len(shape) + ", gen);")
        shared = ", ".join(f"{case}_{name}" for name, _ in params)     # timed on the same arrays: same layout
        for variant, function in (("", kernel.name), ("_scatter", f"{kernel.name}_scatter"), ("_hand", f"hand_{case}")):
            args = ", ".join(f"{case}_{name}{variant if (name, shape) in gradients else ''}" for name, shape in params)
            body.append(f"    {function}({args});")
            body.append(f"    auto {case}{variant} = [&]() {{ {function}({shared}); }};")
            entries.append(f'{{"{case}", {case}{variant}, {{}}}}')
        for name, shape in gradients:
            size = 1
            for extent in shape:
                size *= extent
            first = "[0]" * len(shape)
            for variant in ("", "_scatter"):
                body.append(f'    ok &= same(&{case}_{name}{variant}{first}, &{case}_{name}_hand{first}, {size}, '
                            f'"{case} d{name[1:]}{variant}");')
    hand = directory / "hand_written.cc"       # its own file, like each generated kernel: no inlining into main
    hand.write_text(HAND_WRITTEN)
    declarations += [line.rstrip(" {") + ";" for line in HAND_WRITTEN.replace(",\n", ", ").splitlines()
                     if line.startswith("void ")]
    harness = "\n".join(declarations) + "\n" + HARNESS.replace("BODY", "\n".join(body)).replace(
        "ENTRIES", ", ".join(entries))
    path = directory / "harness.cc"
    path.write_text(harness)
    return sources + [str(hand), str(path)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cxx", default="g++", help="the C++ compiler (default: g++)")
    parser.add_argument("--flags", default="-O2 -falign-loops=32", help="compiler options (default: %(default)s)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        sources = build(Path(directory))
        binary = Path(directory) / "kernels_cpp"
        subprocess.run([args.cxx] + args.flags.split() + ["-o", str(binary)] + sources, check=True)
        return subprocess.run([str(binary)]).returncode


if __name__ == "__main__":
    sys.exit(main())
