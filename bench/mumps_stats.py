"""Where the time per KKT factorisation goes: MUMPS's own statistics over a whole solve.

    python bench/mumps_stats.py [--factor 8] [--options '{"mumps_scaling": 8}'] [--heap]
                                problems/a.yaml ...

Each problem is solved once, in a fresh process, with `solver.codegen: true` (the cache as
bench/solve.py --codegen leaves it), MUMPS's print level 2 (its statistics after every
analysis, factorisation and solve, on the child's stdout) and IPOPT's journal at level 6 in a
temporary file. One markdown row per problem:

- KKT rows (MUMPS's N), iterations, factorisations, the compressed 2×2 ordering
  (INFOG(24) = 2: on; 1: off, the constraint rows' zero pivots are then delayed),
- delayed pivots (INFOG(13)) and elimination flops (RINFOG(3)) of the first factorisation and
  their medians over the solve, the analysis's flop estimate (RINFOG(1): without delays),
- the assembly tree's nodes per KKT row (smaller supernodes: more, smaller BLAS calls),
- factor entries (INFOG(29)), ms per numeric factorisation (MUMPS's elapsed time) and the
  flop rate, solves per factorisation and ms per solve, the one analysis's seconds,
- IPOPT's seconds without function evaluations, the process's system CPU seconds and minor
  page faults (the kernel zeroing fresh pages of MUMPS's work space: see --heap).

--options adds IPOPT options (a JSON object) over the problem's. --heap sets glibc's
mmap threshold to 1 GiB and its trim threshold to 2 GiB in the child (`mallopt`) before the
solve: glibc's dynamic threshold stops at 32 MB, so a larger MUMPS work space (8× knots) is
mapped afresh and zeroed by the kernel at every factorisation; with the heap it is reused.
Arithmetic is unchanged (same iterates); docs/speed.md has the measurements.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)


def child(path: str, factor: float, options: dict, heap: bool, journal: str) -> None:
    """Solve and print the rusage and the result's summary after MUMPS's own output."""
    if heap:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        if not (libc.mallopt(M_MMAP_THRESHOLD, 1 << 30) and libc.mallopt(M_TRIM_THRESHOLD, (1 << 31) - 1)):
            raise SystemExit("mallopt refused")
    import resource
    sys.path.insert(0, str(ROOT))
    import gaitopt as go
    p = go.load_problem(path)
    if factor != 1:
        p = p.scaled_knots(factor)
    opts = {**p.solver.options, "mumps_print_level": 2, "timing_statistics": "yes",
            "output_file": journal, "file_print_level": 6, **options}
    r = go.solve(p.replace(solver={"codegen": True, "print_level": 0, "options": opts}))
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print("RESULT " + json.dumps({"iterations": r.stats["iterations"], "cost": r.cost, "status": str(r.status),
                                  "stime": ru.ru_stime, "minflt": ru.ru_minflt}), flush=True)


def _num(pattern: str, text: str, conv=float):
    m = re.search(pattern, text)
    return conv(m.group(1).replace("D", "E")) if m else None


def mumps_statistics(out: str) -> dict:
    """The per-factorisation and per-solve figures of MUMPS's print level 2 output."""
    facts = []
    for block in out.split("Leaving factorization with")[1:]:
        facts.append({"flops": _num(r"\(3\) Operations in node elimination\s*=\s*(\S+)", block),
                      "entries": _num(r"INFOG \(29\) Number of entries in factors\s*=\s*(\d+)", block, int),
                      "delayed": _num(r"INFOG \(13\) Number of delayed pivots\s*=\s*(\d+)", block, int),
                      "compressed": _num(r"INFOG \(24\) Effective value of ICNTL\(12\)\s*=\s*(\d+)", block, int)})
    times = [float(t) for t in re.findall(r"Elapsed time for factorization\s*=\s*(\S+)", out)]
    for f, t in zip(facts, times):
        f["s"] = t
    solves = [float(t) for t in re.findall(r"Elapsed time in solve driver\s*=\s*(\S+)", out)]
    return {"factorisations": facts, "solves": solves,
            "n": _num(r"JOB, N, NNZ =\s+1\s+(\d+)", out, int),
            "nodes": _num(r"\(6\) Number of nodes in the tree\s*=\s*(\d+)", out, int),
            "estimated_flops": _num(r"RINFOG\(1\) Operations during elimination \(estim\)\s*=\s*(\S+)", out),
            "analysis_s": sum(float(t) for t in re.findall(r"Elapsed time in analysis driver\s*=\s*(\S+)", out))}


def row(name: str, factor: float, out: str, journal: str) -> str:
    res = json.loads(re.search(r"^RESULT (.*)$", out, re.M).group(1))
    st = mumps_statistics(out)
    fs = st["factorisations"]
    med = lambda key: statistics.median(f[key] for f in fs)  # noqa: E731
    ipopt_s = _num(r"Total seconds in IPOPT \(w/o function evaluations\)\s*=\s*(\S+)", journal)
    fact_s = sum(f["s"] for f in fs)
    return (f"| {name} | {factor:g} | {st['n']} | {res['iterations']} | {len(fs)} | "
            f"{'/'.join(str(c) for c in sorted({f['compressed'] for f in fs}))} | "
            f"{fs[0]['delayed']} / {med('delayed'):.0f} | {st['estimated_flops']:.3g} | "
            f"{fs[0]['flops']:.3g} / {med('flops'):.3g} | {st['nodes'] / st['n']:.3f} | {med('entries') / 1e6:.2f} | "
            f"{1e3 * fact_s / len(fs):.1f} | {sum(f['flops'] for f in fs) / fact_s / 1e9:.2f} | "
            f"{len(st['solves']) / len(fs):.2f} | {1e3 * statistics.mean(st['solves']):.2f} | "
            f"{st['analysis_s']:.3f} | {ipopt_s:.2f} | {res['stime']:.2f} | {res['minflt']} |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("problems", nargs="*")
    ap.add_argument("--factor", type=float, default=8.0)
    ap.add_argument("--options", default="{}", help="IPOPT options, a JSON object")
    ap.add_argument("--heap", action="store_true", help="glibc keeps large blocks on its heap (mallopt)")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)  # PROBLEM JOURNAL, in a fresh process
    args = ap.parse_args(argv)
    if args.child:
        child(args.child[0], args.factor, json.loads(args.options), args.heap, args.child[1])
        return 0
    if not args.problems:
        ap.error("name at least one problem file")
    print("| problem | knots× | KKT rows | iterations | factorisations | ICNTL(12) used | delayed pivots "
          "(first / median) | flops estimated | flops (first / median) | tree nodes per row | factor entries M "
          "| ms / numeric factorisation | Gflop/s | solves / factorisation | ms / solve | analysis s | "
          "IPOPT s (w/o evaluations) | system CPU s | minor faults |")
    print("|" + "---|" * 19)
    for path in args.problems:
        fd, journal = tempfile.mkstemp(suffix=".ipopt.txt")
        os.close(fd)
        try:
            cmd = [sys.executable, __file__, "--factor", str(args.factor), "--options", args.options,
                   *(["--heap"] if args.heap else []), "--child", path, journal]
            out = subprocess.run(cmd, capture_output=True, text=True, env=os.environ).stdout
            print(row(Path(path).stem, args.factor, out, Path(journal).read_text(errors="replace")), flush=True)
        finally:
            os.remove(journal)
    return 0


if __name__ == "__main__":
    sys.exit(main())
