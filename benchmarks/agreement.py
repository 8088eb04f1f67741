"""How many labels a calibration needs: raw faithfulness AUROC, the word-overlap floor, and
the calibrated AUROC at label budgets, for the offline judge and an LLM judge, on the
development sets' held-out halves.

For each judge and set, the items of the held-out half ("test", by a hash of the
contexts, as every benchmark here) with a faithfulness score are the pool:

- raw: AUROC of the faithfulness score against the label; floor: of the share of the
  answer's words found in the contexts (the same items);
- budget b: ``--draws`` times, b labelled items are drawn from the pool (seeded), a
  calibration is fitted on them exactly as ``veracity calibrate`` fits one (logistic on
  the signals or isotonic on the score, chosen by 5-fold cross-validation) and applied to
  the rest of the pool; the AUROC there, calibrated and raw and floor on the same items.
  Reported: the mean over draws and the 2.5–97.5 % range of the draws, the mean
  calibrated − raw and calibrated − floor with their ranges. A budget that leaves fewer
  than 20 items to score is skipped;
- cross-validated: 5-fold over the whole held-out pool (each item scored by a calibration
  fitted on the other four fifths, i.e. on 80 % of the pool's labels), with
  paired-bootstrap intervals against raw and floor: the figure for a small pool;
- fit half: a calibration fitted on every fit-half item of the set, applied to the whole
  held-out half, with paired-bootstrap intervals against raw and floor;
- pooled: one calibration fitted on the fit halves of all sets together (a scoring
  shipped once, not fitted by the user), applied to each held-out half.
  ``--write-scorings DIR`` writes it as the named scoring ``<judge>-combined.json``
  (veracity's own live in src/veracity/agreement/scorings).

Judges: ``offline`` (run here, into ``--out``, resumable) and ``llm``: results of
``benchmarks/local_llm_judge.py`` read from ``--llm-runs`` (directories holding one run
directory per set; several, comma-separated, e.g. the test and the fit split's).

Run:  python benchmarks/agreement.py [--judges offline,llm]
          [--sets halueval_qa,wice_dev,begin_dev,summedits_dev,mtragun_constructed]
          [--budgets 25,50,100,200] [--draws 20] [--llm-runs runs/local_llm_judge]
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.metrics import roc_auc_score

from offline_data import (
    DEFAULT_DATA,
    MTRAG_CONSTRUCTED,
    Row,
    context_digest,
    in_pooled_fit,
    load_set,
)
from veracity import aevaluate
from veracity._version import __version__
from veracity.agreement.calibrate import (
    CHOSEN,
    CalibrationError,
    FitOptions,
    fit_best,
    fit_calibration,
)
from veracity.agreement.calibration_file import CalibrationFile, Scoring, judge_identity
from veracity.agreement.signals import FAITHFULNESS_SIGNALS, signal_matrix
from veracity.agreement.statistics import paired_figures
from veracity.config import RunConfig
from veracity.metrics.local_signals import answer_overlap
from veracity.report.run_data import load_run
from veracity.store import read_results
from veracity.types import ResultRecord, Sample

# The sets with faithfulness labels, and multi-turn RAG answers whose labels are
# constructed (offline_data.MTRAG_CONSTRUCTED).
SETS = ("halueval_qa", "wice_dev", "begin_dev", "summedits_dev", MTRAG_CONSTRUCTED)
# The rule a pooled scoring must meet on every set's held-out half to be a judge's default
# calibration (SPEC: the offline judge's default; issue 50): at or above the word-overlap
# floor, and at most this much below the raw score.
DEFAULT_MAX_BELOW_RAW = 0.01
NAMES = FAITHFULNESS_SIGNALS
MIN_SCORED = 20


@dataclass
class Items:
    """One judge's scored items of one set, both halves."""

    rows: list[Row]
    x: np.ndarray[Any, np.dtype[np.float64]]
    unscored: int

    def half(self, split: str) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], list[str]]:
        keep = [i for i, r in enumerate(self.rows) if r.split == split]
        y = np.asarray([self.rows[i].label for i in keep], dtype=bool)
        groups = [context_digest(self.rows[i].contexts).hex() for i in keep]
        return self.x[keep], y, groups

    def pooled_fit(self) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], list[str]]:
        """The fit half's items that go into a scoring fitted on all sets."""
        x, y, groups = self.half("fit")
        keep = [in_pooled_fit(r) for r in self.rows if r.split == "fit"]
        return x[keep], y[keep], [g for g, k in zip(groups, keep, strict=True) if k]

    def floor(self, split: str) -> np.ndarray[Any, Any]:
        return np.asarray(
            [answer_overlap(r.answer, r.contexts) for r in self.rows if r.split == split]
        )


def _sample(row: Row) -> Sample:
    return Sample(id=row.id, question=row.question, contexts=list(row.contexts), answer=row.answer)


def _items(rows: Sequence[Row], records: dict[str, ResultRecord]) -> Items:
    kept = [r for r in rows if r.id in records and records[r.id].score is not None]
    samples: dict[tuple[str, str | None], Sample] = {(r.id, None): _sample(r) for r in kept}
    x: np.ndarray[Any, Any] = np.asarray(
        signal_matrix([[records[r.id]] for r in kept], NAMES, samples)
    )
    unscored = sum(1 for r in rows if r.id in records) - len(kept)
    return Items(kept, x, unscored)


async def offline_records(rows: Sequence[Row], out: Path) -> dict[str, ResultRecord]:
    samples = [
        {"id": r.id, "question": r.question, "contexts": list(r.contexts), "answer": r.answer}
        for r in rows
    ]
    # The judge's own verdicts: the signals are what is fitted, no calibration applied.
    result = await aevaluate(
        samples, "faithfulness", "offline", config=RunConfig(calibration="none"), out=out
    )
    return {r.sample_id: r for r in result.results}


def llm_records(dirs: Sequence[Path], name: str) -> dict[str, ResultRecord]:
    found: dict[str, ResultRecord] = {}
    for directory in dirs:
        if (directory / name / "results.jsonl").is_file():
            for record in read_results(directory / name):
                if record.metric == "faithfulness" and record.iteration == 0:
                    found[record.sample_id] = record
    return found


def _auroc(scores: Sequence[float], y: np.ndarray[Any, Any]) -> float | None:
    return float(roc_auc_score(y, scores)) if 0 < y.sum() < len(y) else None


def _range(values: Sequence[float] | np.ndarray[Any, Any]) -> dict[str, float]:
    a = np.asarray(values, dtype=np.float64)
    return {"mean": round(float(a.mean()), 3), "low": round(float(np.percentile(a, 2.5)), 3),
            "high": round(float(np.percentile(a, 97.5)), 3)}  # fmt: skip


def budget_curve(
    items: Items,
    budgets: Sequence[int],
    draws: int,
    split: str = "test",
    options: FitOptions = CHOSEN,
) -> dict[str, Any]:
    x, y, groups = items.half(split)
    floor = items.floor(split)
    raw = x[:, NAMES.index("score")]
    rng = np.random.default_rng(20_261_126)
    curve: dict[str, Any] = {}
    for budget in budgets:
        if len(y) - budget < MIN_SCORED:
            continue
        found: dict[str, list[float]] = {"calibrated": [], "raw": [], "floor": []}
        for _ in range(draws * 5):
            if len(found["calibrated"]) == draws:
                break
            pick = rng.permutation(len(y))
            train, rest = pick[:budget], pick[budget:]
            if not 2 <= y[train].sum() <= budget - 2 or not 0 < y[rest].sum() < len(rest):
                continue
            try:
                chosen = fit_best(
                    x[train], y[train], NAMES, [groups[i] for i in train], options=options
                )
            except CalibrationError:
                continue
            predicted = chosen.model.predict(x[rest][:, [NAMES.index(s) for s in
                                                         chosen.model.signals]])  # fmt: skip
            found["calibrated"].append(float(roc_auc_score(y[rest], predicted)))
            found["raw"].append(float(roc_auc_score(y[rest], raw[rest])))
            found["floor"].append(float(roc_auc_score(y[rest], floor[rest])))
        if not found["calibrated"]:
            continue
        cal, r, f = (np.asarray(found[k]) for k in ("calibrated", "raw", "floor"))
        curve[str(budget)] = {
            "draws": len(cal),
            "scored_on": int(len(y) - budget),
            "calibrated": _range(cal),
            "raw": _range(r),
            "floor": _range(f),
            "calibrated_minus_raw": _range(cal - r),
            "calibrated_minus_floor": _range(cal - f),
            "share_at_or_above_floor": round(float(np.mean(cal >= f)), 3),
        }
    return curve


def cross_validated(items: Items) -> dict[str, Any] | None:
    """Out-of-fold calibrated AUROC over the whole held-out pool."""
    x, y, groups = items.half("test")
    try:
        chosen = fit_best(x, y, NAMES, groups)
    except CalibrationError as exc:
        return {"error": str(exc)}
    return _compare(list(chosen.out_of_fold), x, y, groups, items) | {
        "model": chosen.model.kind,
        "folds": chosen.folds,
    }


def _compare(
    predicted: list[float], x: np.ndarray[Any, Any], y: np.ndarray[Any, Any],
    groups: list[str], items: Items,
) -> dict[str, Any]:  # fmt: skip
    raw = list(x[:, NAMES.index("score")])
    floor = list(items.floor("test"))
    labels = list(y)
    versus_raw = paired_figures(raw, predicted, labels, threshold_a=0.5, threshold_b=0.5,
                                groups=groups)["auroc"]  # fmt: skip
    versus_floor = paired_figures(floor, predicted, labels, threshold_a=0.5, threshold_b=0.5,
                                  groups=groups)["auroc"]  # fmt: skip
    return {
        "scored_on": len(y),
        "calibrated": _r(versus_raw.b),
        "raw": _r(versus_raw.a),
        "floor": _r(versus_floor.a),
        "calibrated_minus_raw": [_r(versus_raw.diff), *[_r(v) for v in versus_raw.ci95 or ()]],
        "calibrated_minus_floor": [
            _r(versus_floor.diff),
            *[_r(v) for v in versus_floor.ci95 or ()],
        ],
    }


def _transfer(
    x_fit: np.ndarray[Any, Any], y_fit: np.ndarray[Any, Any], groups_fit: list[str], items: Items
) -> dict[str, Any] | None:
    """Fitted on ``x_fit``, applied to ``items``' held-out half."""
    try:
        chosen = fit_best(x_fit, y_fit, NAMES, groups_fit)
    except CalibrationError as exc:
        return {"error": str(exc)}
    x, y, groups = items.half("test")
    if not 0 < y.sum() < len(y):
        return None
    predicted = chosen.model.predict(x[:, [NAMES.index(s) for s in chosen.model.signals]])
    return _compare(predicted, x, y, groups, items) | {
        "model": chosen.model.kind,
        "fitted_on": len(y_fit),
    }


def write_scoring(
    directory: Path,
    judge: str,
    per_set: dict[str, Items],
    run_dir: Path,
    x: np.ndarray[Any, Any],
    y: np.ndarray[Any, Any],
    groups: list[str],
) -> Path:
    """The pooled fit-half calibration of ``judge`` as the named scoring
    ``<judge>-combined``."""
    name = f"{judge}-combined"
    sizes = ", ".join(f"{s} {len(items.pooled_fit()[1])}" for s, items in per_set.items())
    fitted = fit_calibration("faithfulness", "faithfulness", x, y, groups, threshold=0.5)
    scoring = CalibrationFile(
        veracity_version=__version__,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        run=f"benchmarks/agreement.py --judges {judge}",
        labels="the development sets' fit halves",
        judge=judge_identity(load_run(run_dir).judge),
        metrics={"faithfulness": fitted},
        scoring=Scoring(
            name=name,
            judges="offline" if judge == "offline" else "llm",
            fitted_on=f"{len(y)} fit-half items ({sizes}), {int(y.sum())} labelled faithful",
        ),
    )
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.json"
    path.write_text(scoring.model_dump_json(indent=1) + "\n")
    return path


def _choices(args: argparse.Namespace) -> dict[str, FitOptions]:
    """The fitting options a ``--choose-*`` flag compares, by name."""
    if args.choose_c:
        return {f"C={v}": replace(CHOSEN, c=float(v)) for v in args.choose_c.split(",")}
    if args.choose_prior:
        return {
            f"overlap weight {v}": replace(CHOSEN, prior={"answer_overlap": float(v)})
            for v in args.choose_prior.split(",")
        }
    if args.choose_singles:
        return {
            f"singles {v}": replace(CHOSEN, singles=() if v == "none" else tuple(v.split(",")))
            for v in args.choose_singles.split(";")
        }
    return {}


def _print_choices(
    judge: str, per_set: dict[str, Items], choices: dict[str, FitOptions],
    budgets: Sequence[int], draws: int,
) -> None:  # fmt: skip
    """Each option's budget curves within the fit halves (never the held-out ones), and
    its mean calibrated AUROC and share of draws at or above the floor over them."""
    for label, options in choices.items():
        cells: list[Any] = []
        for name, items in per_set.items():
            curve = budget_curve(items, budgets, draws, split="fit", options=options)
            cells += curve.values()
            print(json.dumps({"judge": judge, "set": name, "option": label, "curve": {
                b: {"calibrated": v["calibrated"]["mean"], "floor": v["floor"]["mean"],
                    "at_or_above_floor": v["share_at_or_above_floor"]}
                for b, v in curve.items()}}), flush=True)  # fmt: skip
        if cells:
            means = {
                "mean_calibrated": float(np.mean([c["calibrated"]["mean"] for c in cells])),
                "mean_at_or_above_floor": float(
                    np.mean([c["share_at_or_above_floor"] for c in cells])
                ),
            }
            print(json.dumps({"judge": judge, "option": label, "cells": len(cells)} | means))


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--judges", default="offline,llm")
    parser.add_argument("--budgets", default="25,50,100,200")
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--llm-runs", default="runs/local_llm_judge")
    parser.add_argument("--out", type=Path, default=Path("runs/agreement"))
    parser.add_argument(
        "--write-scorings", type=Path, default=None,
        help="write each judge's pooled calibration as DIR/<judge>-combined.json",
    )  # fmt: skip
    parser.add_argument(
        "--choose-c", default=None,
        help="comma-separated inverse L2 strengths: print the budget curves of each, within "
        "the fit halves only (how LOGISTIC_C is chosen), and stop",
    )  # fmt: skip
    parser.add_argument(
        "--choose-prior", default=None,
        help="comma-separated weights of answer_overlap (1: shrunk like every signal): the "
        "budget curves of each within the fit halves (how PRIOR_WEIGHTS is chosen), and stop",
    )  # fmt: skip
    parser.add_argument(
        "--choose-singles", default=None,
        help="semicolon-separated sets of signals each fitted alone as a candidate beside the "
        "combination ('none', 'score', 'score,answer_overlap'): the budget curves of each "
        "within the fit halves (how SINGLE_SIGNALS is chosen), and stop",
    )  # fmt: skip
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    choices = _choices(args)
    report: dict[str, Any] = {}
    for judge in args.judges.split(","):
        per_set: dict[str, Items] = {}
        run_dirs: list[Path] = []
        for name in args.sets.split(","):
            rows = load_set(args.data, name)
            if judge == "offline":
                run_dirs.append(args.out / "offline" / name)
                records = asyncio.run(offline_records(rows, run_dirs[-1]))
            else:
                dirs = [Path(d) for d in args.llm_runs.split(",")]
                run_dirs += [d / name for d in dirs if (d / name / "run.json").is_file()]
                records = llm_records(dirs, name)
            per_set[name] = _items(rows, records)
        if choices:
            _print_choices(judge, per_set, choices, budgets, args.draws)
            continue
        fits = [items.pooled_fit() for items in per_set.values()]
        pooled: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], list[str]] = (
            np.concatenate([f[0] for f in fits if len(f[1])] or [np.zeros((0, len(NAMES)))]),
            np.concatenate([f[1] for f in fits]),
            [g for f in fits for g in f[2]],
        )
        for name, items in per_set.items():
            x, y, _ = items.half("test")
            x_fit, y_fit, groups_fit = items.half("fit")
            entry = {
                "items_test": len(y),
                "items_fit": len(y_fit),
                "unscored": items.unscored,
                "raw": _r(_auroc(list(x[:, 0]), y)),
                "floor": _r(_auroc(list(items.floor("test")), y)),
                "budgets": budget_curve(items, budgets, args.draws),
                "cross_validated": cross_validated(items),
                "fit_half": _transfer(x_fit, y_fit, groups_fit, items) if len(y_fit) else None,
                "pooled_fit_halves": _transfer(pooled[0], pooled[1], pooled[2], items)
                if len(pooled[1])
                else None,
            }
            report[f"{judge}/{name}"] = entry
            print(json.dumps({f"{judge}/{name}": entry}), flush=True)
        if args.write_scorings is not None:
            written = write_scoring(args.write_scorings, judge, per_set, run_dirs[0], *pooled)
            print(f"wrote {written}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "agreement.json").write_text(json.dumps(report, indent=1))
    _print_tables(report)


def _print_tables(report: dict[str, Any]) -> None:
    print("\n| judge / set | held-out items | raw | floor | 5-fold on held-out | "
          "fit half → held-out | pooled fit halves → held-out |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for key, e in report.items():
        cells = []
        for name in ("cross_validated", "fit_half", "pooled_fit_halves"):
            t = e.get(name)
            if not t or "error" in t:
                cells.append("—")
                continue
            d = t["calibrated_minus_raw"]
            interval = f" [{d[1]:+.3f}, {d[2]:+.3f}]" if len(d) == 3 else ""
            cells.append(f"{t['calibrated']} (− raw {d[0]:+.3f}{interval})")
        print(f"| {key} | {e['items_test']} | {e['raw']} | {e['floor']} | {' | '.join(cells)} |")
    print("\n| judge / set | labels | calibrated | raw | floor | cal. − raw | cal. − floor | "
          "draws ≥ floor |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for key, e in report.items():
        for budget, c in e["budgets"].items():
            cells = [fmt(c["calibrated"]), f"{c['raw']['mean']:.3f}", f"{c['floor']['mean']:.3f}",
                     fmt(c["calibrated_minus_raw"]), fmt(c["calibrated_minus_floor"]),
                     f"{c['share_at_or_above_floor']:.0%}"]  # fmt: skip
            print(f"| {key} | {budget} | {' | '.join(cells)} |")
    for judge in sorted({key.split("/")[0] for key in report}):
        failing = default_rule_failures(
            {k.split("/", 1)[1]: e for k, e in report.items() if k.startswith(f"{judge}/")}
        )
        verdict = "meets" if not failing else "does NOT meet (" + "; ".join(failing) + ")"
        print(f"\n{judge}: the pooled scoring {verdict} the rule for a default calibration "
              f"(≥ floor, ≥ raw − {DEFAULT_MAX_BELOW_RAW} on every held-out half)")  # fmt: skip


def default_rule_failures(entries: dict[str, Any]) -> list[str]:
    """Where the pooled scoring falls below the floor, or more than
    ``DEFAULT_MAX_BELOW_RAW`` below the raw score, on a set's held-out half."""
    failing = []
    for name, e in entries.items():
        pooled = e.get("pooled_fit_halves")
        if not pooled or "error" in pooled:
            failing.append(f"{name}: no pooled figure")
            continue
        if pooled["calibrated"] < pooled["floor"]:
            failing.append(f"{name}: {pooled['calibrated']} < floor {pooled['floor']}")
        if pooled["calibrated"] < pooled["raw"] - DEFAULT_MAX_BELOW_RAW:
            failing.append(f"{name}: {pooled['calibrated']} < raw {pooled['raw']} − "
                           f"{DEFAULT_MAX_BELOW_RAW}")  # fmt: skip
    return failing


def fmt(v: dict[str, float]) -> str:
    return f"{v['mean']:.3f} [{v['low']:.3f}, {v['high']:.3f}]"


if __name__ == "__main__":
    main()
