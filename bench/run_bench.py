"""Time judged against peer IR evaluation tools on a synthetic TREC collection.

Each tool evaluates nDCG@10, AP, RR, P@10 and R@100 per query, end to end
from the run and qrels files on disk, in a fresh child process per timing.
Wall time is the median over ``--repeat`` runs; peak memory is the child's
``ru_maxrss`` as returned by ``os.wait4`` (maximum over the repeats).  This
driver only imports the standard library and never reads the run itself, so
its own footprint stays small; the collection is generated (and cached) by a
``generate.py`` child.

After timing, every tool's per-query values are compared with pytrec_eval's
(the trec_eval reference) on the queries both report, and the maximum
absolute difference per measure is printed.

Example: ``python3 bench/run_bench.py --queries 1000 --tools pytrec_eval,ranx``
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
MEASURES = ("nDCG@10", "AP", "RR", "P@10", "R@100")
TOOLS = ("judged", "pytrec_eval", "ir_measures", "ranx", "trec_eval", "pyarrow_floor")
#: Every measure: judged's drop-in trec_eval, trec_eval and pytrec_eval each computing all they can (not by default).
ALL_TREC_TOOLS = ("judged_all_trec", "trec_eval_all_trec", "pytrec_eval_all_trec")
PACKAGES = ("judged", "pytrec-eval-terrier", "ir-measures", "ranx", "numba", "pyarrow", "numpy")
TREC_EVAL_MEASURES = ("ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100")


@dataclass
class Result:
    """Timings of one tool: median wall seconds, peak RSS in MB, or why there are none."""

    tool: str
    wall_s: float | None = None
    peak_mb: float | None = None
    note: str = ""
    output: Path | None = None


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=10_000, help="queries in the run")
    parser.add_argument("--depth", type=int, default=1_000, help="documents per query")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per tool (median reported)")
    parser.add_argument("--tools", default=",".join(TOOLS),
                        help=f"comma-separated subset of {','.join(TOOLS + ALL_TREC_TOOLS)}")
    parser.add_argument("--data-dir", type=Path, default=BENCH / "data", help="cache of generated collections")
    parser.add_argument("--judged-cmd", default=None,
                        help="command that starts the judged CLI (default: the `judged` script beside "
                             "this interpreter, else on PATH, else `python3 -m judged` with src/ on PYTHONPATH)")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds before a child is killed")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args(argv)
    args.tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = set(args.tools) - set(TOOLS + ALL_TREC_TOOLS)
    if unknown:
        parser.error(f"unknown tools: {', '.join(sorted(unknown))}")
    return args


def ensure_collection(data_dir: Path, queries: int, depth: int, seed: int) -> Path:
    """Return the collection directory, generating it first unless a complete copy is cached.

    A collection is complete when generate.py has written its manifest (the
    last thing it writes); generation runs in a child to keep this process small.
    """
    out = data_dir / f"q{queries}-d{depth}-s{seed}"
    if not (out / "manifest.json").exists():
        print(f"generating {queries} x {depth} collection in {out} ...", file=sys.stderr)
        subprocess.run([sys.executable, str(BENCH / "generate.py"), "--queries", str(queries),
                        "--depth", str(depth), "--seed", str(seed), "--out", str(out)],
                       check=True, stdout=subprocess.DEVNULL)
    return out


def judged_command(override: str | None) -> tuple[list[str], dict[str, str]]:
    """The judged CLI's argv prefix and extra environment.

    Prefers the console script installed next to this interpreter over one
    found on PATH, because PATH may hold a wrapper (e.g. a pyenv shim) that
    adds ~0.1 s of shell start-up to every timing.
    """
    if override:
        return shlex.split(override), {}
    beside = Path(sys.executable).parent / "judged"
    exe = str(beside) if beside.exists() else shutil.which("judged")
    if exe:
        return [exe], {}
    pythonpath = os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")]))
    return [sys.executable, "-m", "judged"], {"PYTHONPATH": pythonpath}


def tool_command(tool: str, run: Path, qrels: Path, out: Path,
                 judged_cmd: str | None) -> tuple[list[str], dict[str, str], bool] | None:
    """(argv, extra env, stdout-is-the-output) for one tool, or None if it is not installed."""
    if tool == "judged":
        prefix, env = judged_command(judged_cmd)
        measures = [arg for m in MEASURES for arg in ("-m", m)]
        return [*prefix, "eval", str(run), "--qrels", str(qrels), *measures,
                "--per-query", "--no-judged", "--format", "tsv", "-o", str(out)], env, False
    if tool == "judged_all_trec":
        prefix, env = judged_command(judged_cmd)
        return [*prefix, "trec_eval", "-q", "-c", "-m", "all_trec", str(qrels), str(run)], env, True
    if tool in ("trec_eval", "trec_eval_all_trec"):
        exe = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
        if exe is None:
            return None
        measures = ([arg for m in TREC_EVAL_MEASURES for arg in ("-m", m)] if tool == "trec_eval"
                    else ["-c", "-m", "all_trec"])
        return [exe, "-q", *measures, str(qrels), str(run)], {}, True
    return [sys.executable, str(BENCH / "peers.py"), tool, str(run), str(qrels), str(out)], {}, False


def run_child(argv: list[str], env: dict[str, str], stdout: Path | None,
              timeout: float) -> tuple[float, float, str | None]:
    """Run one child to completion; return (wall s, peak RSS MB, error or None).

    ``os.wait4`` yields the rusage of exactly this child (ru_maxrss is in KiB
    on Linux).  stderr goes to a temporary file so a chatty child cannot block
    on a full pipe; a timer kills the child after ``timeout`` seconds.
    """
    with tempfile.TemporaryFile("w+") as err, open(stdout or os.devnull, "w") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env={**os.environ, **env})
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode == 0:
            return wall, usage.ru_maxrss / 1024, None
        err.seek(0)
        return wall, usage.ru_maxrss / 1024, error_line(err.read(), proc.returncode, wall >= timeout)


def error_line(stderr: str, returncode: int, timed_out: bool) -> str:
    """One line saying why a child failed: the first stderr line, or a traceback's last line."""
    if timed_out:
        return "timed out"
    lines = [line for line in stderr.splitlines() if line.strip()]
    if not lines:
        return f"exit code {returncode}"
    return lines[-1].strip() if lines[0].startswith("Traceback") else lines[0].strip()


def time_tool(tool: str, run: Path, qrels: Path, workdir: Path, args: argparse.Namespace,
              extra_env: dict[str, str] | None = None, repeat: int | None = None) -> Result:
    """Time ``repeat`` runs of one tool; stop at the first failure."""
    out = workdir / f"{tool}.tsv"
    command = tool_command(tool, run, qrels, out, args.judged_cmd)
    if command is None:
        return Result(tool, note="not installed")
    argv, env, to_stdout = command
    walls, peaks = [], []
    for _ in range(repeat or args.repeat):
        wall, peak, error = run_child(argv, {**env, **(extra_env or {})}, out if to_stdout else None, args.timeout)
        if error:
            return Result(tool, note=f"failed: {error}")
        walls.append(wall)
        peaks.append(peak)
        print(f"  {tool}: {wall:.2f} s, {peak:.0f} MB", file=sys.stderr)
    return Result(tool, statistics.median(walls), max(peaks), output=out)


def time_ranx(run: Path, qrels: Path, workdir: Path, args: argparse.Namespace) -> list[Result]:
    """ranx twice over: one run on an empty numba cache (cold JIT), then the warm runs.

    NUMBA_CACHE_DIR points at a fresh directory so the cold number does not
    depend on what earlier sessions left in site-packages.
    """
    env = {"NUMBA_CACHE_DIR": str(workdir / "numba-cache")}
    cold = time_tool("ranx", run, qrels, workdir, args, env, repeat=1)
    if cold.note:
        return [cold]
    cold.tool, cold.output, cold.note = "ranx (cold)", None, "1 run, empty numba cache (JIT compile)"
    warm = time_tool("ranx", run, qrels, workdir, args, env)
    warm.note = warm.note or "warm numba cache"
    return [warm, cold]


def ratio(value: float | None, base: float | None) -> str:
    """``value / base`` formatted, or n/a when either is missing."""
    return f"{value / base:.2f}" if value is not None and base else "n/a"


def table_rows(results: list[Result]) -> list[list[str]]:
    """Table cells: tool, wall s, peak MB, both ratios against judged, and a note."""
    judged = next((r for r in results if r.tool == "judged"), Result("judged"))
    rows = []
    for r in results:
        if r.wall_s is None:
            rows.append([r.tool, "-", "-", "-", "-", r.note])
        else:
            rows.append([r.tool, f"{r.wall_s:.2f}", f"{r.peak_mb:.0f}",
                         ratio(r.wall_s, judged.wall_s), ratio(r.peak_mb, judged.peak_mb), r.note])
    return rows


def format_table(results: list[Result], markdown: bool) -> str:
    """Render the results as aligned plain text or as a Markdown table."""
    header = ["tool", "wall s", "peak MB", "time / judged", "memory / judged", "note"]
    rows = table_rows(results)
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * 4 + "---|"]
        return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    padded = ("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in [header, *rows])
    return "\n".join(line.rstrip() for line in padded)


def environment(collection: Path) -> list[str]:
    """Lines describing the machine, package versions and collection size."""
    manifest = json.loads((collection / "manifest.json").read_text())
    versions = []
    for package in PACKAGES:
        try:
            versions.append(f"{package} {importlib.metadata.version(package)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{package} (not installed)")
    return [
        f"collection: {manifest['queries']} queries x {manifest['depth']} docs = {manifest['run_lines']:,} run lines, "
        f"{manifest['qrels_lines']:,} qrels lines",
        f"machine: {cpu_model()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, {platform.system()}",
        "versions: " + ", ".join(versions),
    ]


def cpu_model() -> str:
    """CPU model name from /proc/cpuinfo, or the platform's processor string."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def read_judged_tsv(path: Path) -> dict[tuple[str, str], float]:
    """judged's ``--per-query --format tsv`` output as {(qid, measure): value}.

    Columns are ``run qid measure value``; judged prints each measure in its
    fully explicit form, mapped back here to the short name passed to ``-m``.
    The header and the ``all`` lines are skipped.
    """
    from judged.measures import parse

    short = {str(parse(m)): m for m in MEASURES}
    values = {}
    with open(path) as f:
        next(f, None)
        for line in f:
            _run, qid, measure, value = line.rstrip("\n").split("\t")
            if qid != "all":
                values[(qid, short[measure])] = float(value)
    return values


def read_peer_tsv(path: Path) -> dict[tuple[str, str], float]:
    """peers.py output (``qid measure value``) as {(qid, measure): value}."""
    with open(path) as f:
        return {(qid, m): float(v) for qid, m, v in (line.rstrip("\n").split("\t") for line in f)}


def cross_check(results: list[Result]) -> list[str]:
    """Per tool and measure: common queries, max |difference| and queries differing vs pytrec_eval."""
    readers = {"judged": read_judged_tsv, "ir_measures": read_peer_tsv, "ranx": read_peer_tsv}
    outputs = {r.tool: r.output for r in results if r.output and r.output.exists()}
    if "pytrec_eval" not in outputs:
        return ["cross-check skipped: no pytrec_eval output"]
    reference = read_peer_tsv(outputs["pytrec_eval"])
    lines = []
    for tool, reader in readers.items():
        if tool not in outputs:
            continue
        values = reader(outputs[tool])
        for measure in MEASURES:
            diffs = [abs(values[key] - ref) for key, ref in reference.items()
                     if key[1] == measure and key in values]
            if diffs:
                differing = sum(d > 1e-6 for d in diffs)
                lines.append(f"{tool:<12} {measure:<8} {len(diffs):>6} common queries, "
                             f"max |diff| {max(diffs):.3g}, {differing} differ by > 1e-6")
            else:
                lines.append(f"{tool:<12} {measure:<8} no common queries")
    return lines or ["nothing to compare"]


def read_trec_eval_output(path: Path) -> dict[tuple[str, str], str]:
    """``(measure, qid) -> value text`` of trec_eval's ``-q`` output (or pytrec_eval's rows in the same order)."""
    values = {}
    for line in path.read_text().splitlines():
        measure, qid, value = line.split("\t")
        values[measure.strip(), qid] = value
    return values


def cross_check_all_trec(results: list[Result]) -> list[str]:
    """judged trec_eval's -m all_trec output against trec_eval's (byte for byte) and pytrec_eval's (values)."""
    outputs = {r.tool: r.output for r in results if r.output and r.output.exists()}
    if "judged_all_trec" not in outputs:
        return []
    judged = read_trec_eval_output(outputs["judged_all_trec"])
    lines = []
    if "trec_eval_all_trec" in outputs:
        same = outputs["judged_all_trec"].read_bytes() == outputs["trec_eval_all_trec"].read_bytes()
        theirs = read_trec_eval_output(outputs["trec_eval_all_trec"])
        differing = sorted({m for key, v in theirs.items() if judged.get(key) != v for m in [key[0]]})
        lines.append("judged trec_eval -m all_trec vs trec_eval: " + (
            "byte for byte identical" if same else f"measures whose lines differ: {', '.join(differing) or 'none'}"))
    if "pytrec_eval_all_trec" in outputs:
        reference = read_trec_eval_output(outputs["pytrec_eval_all_trec"])
        shared = [key for key in reference if key in judged and key[0] not in ("runid", "relstring")]
        worst: dict[str, float] = {}
        for key in shared:
            worst[key[0]] = max(worst.get(key[0], 0.0), abs(float(judged[key]) - float(reference[key])))
        apart = {m: d for m, d in worst.items() if d > 5e-5}  # judged prints 4 decimals
        lines.append(f"judged trec_eval -m all_trec vs pytrec_eval: {len(shared)} (measure, query) values in common, "
                     f"{len(worst) - len(apart)} of {len(worst)} measures equal at 4 decimals"
                     + (f"; apart (pytrec_eval bundles trec_eval 9, whose iprec_at_recall adds 0.9 to a level's "
                        f"rank and truncates where trec_eval 10 rounds it): "
                        f"{', '.join(f'{m} {d:.3g}' for m, d in sorted(apart.items()))}"
                        if apart else ""))
    return lines


def main(argv: list[str] | None = None) -> None:
    """Generate or reuse the collection, time the selected tools, print table and cross-check."""
    args = parse_args(argv)
    collection = ensure_collection(args.data_dir, args.queries, args.depth, args.seed)
    run, qrels = collection / "run.txt", collection / "qrels.txt"
    with tempfile.TemporaryDirectory(prefix="judged-bench-") as tmp:
        workdir = Path(tmp)
        results = []
        for tool in args.tools:
            print(f"timing {tool} ...", file=sys.stderr)
            if tool == "ranx":
                results.extend(time_ranx(run, qrels, workdir, args))
            else:
                results.append(time_tool(tool, run, qrels, workdir, args))
        prefix = "" if not args.markdown else "- "
        print("\n".join(prefix + line for line in environment(collection)))
        print(f"{prefix}median of {args.repeat} runs; peak = max RSS of the child process\n")
        print(format_table(results, args.markdown))
        print("\ncross-check against pytrec_eval (per-query values):")
        print("\n".join(cross_check(results) + cross_check_all_trec(results)))
    driver_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\nbenchmark driver's own peak RSS: {driver_mb:.0f} MB")


if __name__ == "__main__":
    main()
