"""How long veracity takes to start: ``import veracity`` and ``veracity --help``.

Each is run ``--rounds`` times in a fresh interpreter (the same one this script runs in),
wall-clock from process start to exit; the median is reported with the range, against
the goals of issue 30 (0.25 s and 0.4 s). Then ``python -X importtime`` of the command
line's import lists the modules that took longest, cumulatively: the place to look when
the figure grows. The machine's 1-minute load average is printed before and after: on a
shared machine, a figure taken under load is not the machine's figure.

Run:  python benchmarks/startup.py [--rounds 15] [--top 12]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

GOALS = {"import veracity": 0.25, "veracity --help": 0.4}
# The console script beside this interpreter, as a user runs it.
SCRIPT = Path(sys.executable).with_name("veracity")
COMMANDS = {
    "import veracity": [sys.executable, "-c", "import veracity"],
    "veracity --help": [str(SCRIPT), "--help"],
    "python alone": [sys.executable, "-c", "pass"],
}


def wall(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def slowest_imports(top: int) -> list[tuple[int, str]]:
    """The ``top`` modules with the largest cumulative import time (µs) of the CLI."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import veracity.cli.app"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    rows = []
    for line in done.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    return sorted(rows, reverse=True)[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for command in COMMANDS.values():  # warm the file cache
        wall(command)
    for name, command in COMMANDS.items():
        times = [wall(command) for _ in range(args.rounds)]
        median = statistics.median(times)
        goal = GOALS.get(name)
        verdict = (
            ""
            if goal is None
            else f" (goal ≤ {goal:.2f} s: {'met' if median <= goal else 'NOT met'})"
        )
        print(f"{name:<18} median {median:.3f} s  "
              f"[{min(times):.3f}, {max(times):.3f}]{verdict}")  # fmt: skip
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print("\nslowest imports of the command line (cumulative µs):")
    for micros, module in slowest_imports(args.top):
        print(f"{micros:>9,}  {module}")


if __name__ == "__main__":
    main()
