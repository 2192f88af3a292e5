"""Fuzz the gaitopt command line against its exit-code contract (tests/fuzzing.py).

    python bench/fuzz.py --cases 1000 --seed 1 [-j 2] [--timeout 60] [--kinds problem,result]

Prints, per kind, the cases run, how many held the contract and one line per breach (with the
reproduction: seed, index, argv), then the totals. Exit 0 when every case held, else 1.
A case is rebuilt and re-run alone with `--only INDEX` (add --keep to keep its directory).
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import fuzzing  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=fuzzing.TIMEOUT_S)
    ap.add_argument("--kinds", default=None, help="comma-separated subset of " + ",".join(fuzzing.KINDS))
    ap.add_argument("--only", type=int, nargs="*", default=None, help="run these indices only")
    ap.add_argument("--keep", action="store_true", help="keep the working directories")
    ap.add_argument("--deadline", type=float, default=None,
                    help="stop starting new cases after this many seconds; report what ran")
    ap.add_argument("--no-retry", action="store_true", help="do not re-run a breach once to tell it from a flake")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per case as it finishes")
    args = ap.parse_args(argv)
    kinds = args.kinds.split(",") if args.kinds else None

    indices = args.only if args.only is not None else range(args.cases)
    cases = [fuzzing.make_case(args.seed, i, kinds) for i in indices]
    root = Path(tempfile.mkdtemp(prefix="gaitopt-fuzz-"))
    t0 = time.monotonic()
    fuzzing.base_result_dir()
    print(f"gaitopt fuzz: seed {args.seed}, {len(cases)} cases, {args.jobs} jobs, timeout {args.timeout:.0f} s, "
          f"work in {root}", flush=True)

    def one(case):
        if args.deadline is not None and time.monotonic() - t0 > args.deadline:
            return case, None
        wd = root / f"{case['index']:05d}"
        try:
            out = fuzzing.run_case(case, wd, timeout=args.timeout)
            if not out.ok and "timeout" not in out.why and not args.no_retry:
                # the code is edited while we run: a breach that does not repeat is reported apart
                shutil.rmtree(wd, ignore_errors=True)
                again = fuzzing.run_case(case, wd, timeout=args.timeout)
                if again.ok:
                    again.why = f"flaky: held on a re-run; first run: {out.why}"
                    again.internal = again.internal or out.internal
                    again.flaky = True
                    return case, again
            return case, out
        finally:
            if not args.keep:
                shutil.rmtree(wd, ignore_errors=True)

    results = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(one, c) for c in cases]
        for n, fut in enumerate(as_completed(futures), 1):
            case, out = fut.result()
            if out is None:
                continue
            results.append((case, out))
            if args.verbose or not out.ok:
                mark = "ok  " if out.ok else "FAIL"
                print(f"[{n}/{len(cases)}] {mark} {case['kind']:7s} #{case['index']} exit {out.exit} "
                      f"{out.seconds:.1f}s {out.why}", flush=True)
            elif n % 50 == 0:
                print(f"[{n}/{len(cases)}] {time.monotonic() - t0:.0f} s", flush=True)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)

    by_kind = defaultdict(list)
    for case, out in sorted(results, key=lambda r: r[0]["index"]):
        by_kind[case["kind"]].append((case, out))
    total = held = internal = 0
    print()
    for kind in fuzzing.KINDS:
        rows = by_kind.get(kind, [])
        if not rows:
            continue
        ok = sum(o.ok for _, o in rows)
        exits = defaultdict(int)
        for _, o in rows:
            exits[o.exit] += 1
        total += len(rows)
        held += ok
        print(f"== {kind}: {len(rows)} cases, {ok} held, {len(rows) - ok} breaches "
              f"(exit codes: {', '.join(f'{k}: {v}' for k, v in sorted(exits.items(), key=str))})")
        for case, o in rows:
            if not o.ok:
                last = o.stderr_tail.strip().splitlines()[-1][:200] if o.stderr_tail.strip() else ""
                print(f"  BREACH seed {case['seed']} index {case['index']}: {o.why} | {case['description'][:160]}"
                      f" | argv {' '.join(case['argv'])[:200]} | stderr: {last}")
        for case, o in rows:
            if getattr(o, "flaky", False):
                print(f"  flaky (held on re-run) seed {case['seed']} index {case['index']}: {o.why[:200]} | "
                      f"argv {' '.join(case['argv'])[:200]}")
        for case, o in rows:
            if o.ok and o.internal:
                internal += 1
                print(f"  internal error (exit 3) seed {case['seed']} index {case['index']}: "
                      f"{case['description'][:160]} | {o.stderr_tail.strip()[-200:]}")
    print(f"\ntotal: {total} cases, {held} held, {total - held} breaches, {internal} internal errors (exit 3); "
          f"{time.monotonic() - t0:.0f} s")
    print(f"reproduce a case: python bench/fuzz.py --seed {args.seed} --only INDEX --keep -v"
          + (f" --kinds {args.kinds}" if args.kinds else ""))
    if total < len(cases):
        print(f"(deadline: {len(cases) - total} cases not run)")
    return 0 if held == total else 1


if __name__ == "__main__":
    sys.exit(main())
