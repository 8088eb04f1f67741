"""``veracity agree`` and ``veracity calibrate``: how far a run agrees with people's
labels, and a calibration fitted to them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from veracity.cli.common import (
    EXIT_THRESHOLD,
    cannot_write,
    err_console,
    fail,
    html_option,
    html_target,
    out_console,
    writing_stdout,
)
from veracity.store.layout import RESULTS

if TYPE_CHECKING:  # the agreement stack (scikit-learn, scipy) loads when a command runs
    from veracity.agreement.calibration_file import CalibrationFile
    from veracity.agreement.report import AgreementReport
    from veracity.labels import Scale

LabelsOption = Annotated[
    Path | None,
    typer.Option(
        help="People's labels: JSONL, JSON or CSV keyed by sample id (and system), a column "
        "per metric, `label` or `human_<metric>` (default: the labels in the run's dataset)."
    ),
]
DatasetOption = Annotated[
    Path | None,
    typer.Option(
        help="The run's dataset, where run.json's path no longer finds it (for the texts of "
        "disagreements, labels kept in the dataset, and signals an older run lacks)."
    ),
]
ScaleOption = Annotated[
    list[str] | None,
    typer.Option(
        "--scale",
        metavar="NAME=LOW:HIGH",
        help="A label's scale, e.g. faithfulness=1:4 for grades 1-4 (repeatable); "
        "binary and 0-1 labels are recognised without it.",
    ),
]
LabelMetricOption = Annotated[
    str,
    typer.Option("--label-metric", help="The metric a bare `label` field or column judges."),
]


def _check_run(path: Path) -> None:
    if not (path / RESULTS).is_file():
        raise fail(f"not a run directory (no {RESULTS}): {path}")


def _scales(specs: list[str] | None) -> dict[str, Scale]:
    from veracity.labels import parse_scales

    try:
        return dict(parse_scales(specs or []))
    except ValueError as exc:
        raise fail(str(exc)) from exc


def agree(  # noqa: PLR0913 - a command: one parameter a flag
    run_a: Annotated[Path, typer.Argument(help="A run directory (written by veracity run).")],
    run_b: Annotated[
        Path | None, typer.Argument(help="A second run on the same labels, compared paired.")
    ] = None,
    labels: LabelsOption = None,
    dataset: DatasetOption = None,
    scale: ScaleOption = None,
    label_metric: LabelMetricOption = "faithfulness",
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the figures to this JSON file.")
    ] = None,
    markdown: Annotated[
        Path | None, typer.Option(help="Also write the figures as Markdown to this file.")
    ] = None,
    html: Annotated[
        str | None,
        html_option(
            "a page of ROC curves, reliability diagrams and the disagreements with their claims",
            "agreement.html in RUN_A",
        ),
    ] = None,
    top: Annotated[int, typer.Option(min=0, help="Worst disagreements shown each way.")] = 5,
    resamples: Annotated[
        int, typer.Option(min=100, max=100_000, help="Bootstrap resamples per interval.")
    ] = 1000,
    minimum: Annotated[
        list[str] | None,
        typer.Option(
            "--min",
            metavar="FIGURE=V",
            help="A gate, e.g. auroc=0.8 (or faithfulness:auroc=0.8): exit 1 where the 95 % "
            "interval's lower bound is below it, overall or in a system (repeatable; "
            "auroc, balanced_accuracy, balanced_accuracy_cv, kappa, weighted_kappa, "
            "spearman).",
        ),
    ] = None,
    github: Annotated[
        bool,
        typer.Option(
            "--github",
            help="Append the Markdown to $GITHUB_STEP_SUMMARY and print ::error "
            "annotations for the gates missed.",
        ),
    ] = False,
) -> None:
    """How far a run's scores agree with people's labels: AUROC, balanced accuracy (at
    the run's threshold and at a cross-validated best one), κ, Spearman for grades, Brier
    and calibration error, each with a 95 % bootstrap interval; the worst disagreements;
    with RUN_B, the paired difference of each figure; with --min, a gate (exit 1)."""
    from veracity.agreement.console import print_agreement
    from veracity.agreement.gate import check_gates, parse_gates
    from veracity.agreement.runs import AgreementError
    from veracity.agreement.runs import agree as compute
    from veracity.report.load import ReportError
    from veracity.store import ResultsFileError

    try:
        gates = parse_gates(minimum or [])
    except ValueError as exc:
        raise fail(str(exc)) from exc
    runs = [run_a] if run_b is None else [run_a, run_b]
    for run in runs:
        _check_run(run)
    try:
        report = compute(
            runs, labels, dataset=dataset, scales=_scales(scale),
            default_target=label_metric, top=top, resamples=resamples,
        )  # fmt: skip
    except (AgreementError, ReportError, ResultsFileError) as exc:
        raise fail(str(exc)) from exc
    try:
        report = replace(report, gates=check_gates(report, gates))
    except ValueError as exc:  # a gate naming a metric the report does not have
        raise fail(str(exc)) from exc
    with writing_stdout():
        print_agreement(report, out_console)
    if not any(report.metrics):
        judged = ", ".join(report.targets_without_metric) or "nothing"
        raise fail(
            f"no metric of the run has labels: the labels judge {judged}, which no metric "
            "of the run measures: nothing to compare"
        )
    _write_outputs(report, json_out, markdown, html_target(html, run_a / "agreement.html"))
    if github:
        _to_github(report)
    out_console.print(
        _next_step(run_a, labels, scale or [], label_metric), highlight=False, markup=False
    )
    if not report.gates_met:
        raise typer.Exit(EXIT_THRESHOLD)


def _to_github(report: AgreementReport) -> None:
    """As ``veracity report --github``: the Markdown into the job's step summary, and an
    ``::error`` annotation for each gate missed."""
    from veracity.agreement.markdown import github_annotations, markdown_agreement
    from veracity.cli.report_formats import append_step_summary

    append_step_summary(markdown_agreement(report))
    for line in github_annotations(report):
        typer.echo(line)


def _next_step(run: Path, labels: Path | None, scales: list[str], label_metric: str) -> str:
    """The command that fits a calibration to the same labels: where agreement leads."""
    import shlex

    words = ["veracity", "calibrate", str(run)]
    words += [] if labels is None else ["--labels", str(labels)]
    words += [word for spec in scales for word in ("--scale", spec)]
    words += [] if label_metric == "faithfulness" else ["--label-metric", label_metric]
    words += ["--out", "calibration.json"]
    return (
        f"next: {shlex.join(words)} — fits a map from each result's signals to P(people "
        "call it good), cross-validated, and says whether it beats the raw score"
    )


def _write_outputs(
    report: AgreementReport, json_out: Path | None, markdown: Path | None, html: Path | None
) -> None:
    from veracity.agreement.html import write_agreement_html
    from veracity.agreement.markdown import markdown_agreement
    from veracity.store import write_json_atomic

    target: Path | None = None
    try:
        if json_out is not None:
            target = json_out
            write_json_atomic(json_out, report.as_dict())
            out_console.print(f"figures: {json_out}", highlight=False, markup=False)
        if markdown is not None:
            target = markdown
            markdown.write_text(markdown_agreement(report), encoding="utf-8")
            out_console.print(f"markdown: {markdown}", highlight=False, markup=False)
        if html is not None:
            target = html
            write_agreement_html(report, html)
            out_console.print(f"agreement page: {html}", highlight=False, markup=False)
    except OSError as exc:
        raise cannot_write(target or Path(), exc) from exc


def calibrate(
    run: Annotated[Path, typer.Argument(help="A run directory (written by veracity run).")],
    out: Annotated[Path, typer.Option(help="The calibration file to write.")],
    labels: LabelsOption = None,
    dataset: DatasetOption = None,
    scale: ScaleOption = None,
    label_metric: LabelMetricOption = "faithfulness",
    metric: Annotated[
        list[str] | None,
        typer.Option(metavar="METRIC", help="Calibrate only this metric (repeatable)."),
    ] = None,
    force: Annotated[
        bool, typer.Option(help="Write the calibration even where it does not help.")
    ] = False,
) -> None:
    """Fit, with 5-fold cross-validation, a map from each result's signals (score, claim
    probabilities, claims, evidence not found, word overlap, names and numbers missing
    from the contexts) to P(people call the answer good): logistic regression on all of
    them, on the score or on word overlap alone, or isotonic on the score, whichever ranks
    the labels best out of fold. Reports the cross-validated AUROC and Brier, raw against
    calibrated; writes only the metrics it helps unless --force. Where it writes nothing,
    it exits 2 and removes an older --out file (no run applies a stale calibration)."""
    from veracity.agreement.runs import AgreementError, calibrate_run
    from veracity.report.load import ReportError
    from veracity.store import ResultsFileError, write_json_atomic

    _check_run(run)
    try:
        fitted = calibrate_run(
            run, labels, dataset=dataset, scales=_scales(scale),
            default_target=label_metric, metrics=metric,
        )  # fmt: skip
    except (AgreementError, ReportError, ResultsFileError) as exc:
        raise fail(str(exc)) from exc
    with writing_stdout():
        _print_calibration(fitted.calibration)
    for name, why in fitted.not_fitted.items():
        err_console.print(Text(f"{name}: not calibrated: {why}", style="yellow"))
    chosen = fitted.calibration if force else fitted.helpful()
    if not chosen.metrics:
        raise fail(_nothing_written(out, fitted_any=bool(fitted.calibration.metrics)))
    try:
        write_json_atomic(out, chosen.model_dump(mode="json"))
    except OSError as exc:
        raise cannot_write(out, exc) from exc
    out_console.print(
        f"calibration of {', '.join(chosen.metrics)} written to {out}; apply it with "
        f"veracity run … --calibration {out}",
        highlight=False,
        markup=False,
    )


def _nothing_written(out: Path, *, fitted_any: bool) -> str:
    """Why no calibration was written; an older file at ``out`` is removed, so that
    ``calibrate … && run --calibration …`` never applies a stale one."""
    why = (
        "calibration does not help on these labels: nothing written (--force writes it anyway)"
        if fitted_any
        else "no metric could be calibrated on these labels: nothing written"
    )
    if out.is_file() or out.is_symlink():
        try:
            out.unlink()
        except OSError as exc:
            raise cannot_write(out, exc) from exc
        why += f"; the older {out} was removed, so that no run applies it"
    return why


def _print_calibration(calibration: CalibrationFile) -> None:
    """Per metric: what was fitted, and its out-of-fold figures raw → calibrated (the
    lines ``print(calibration)`` shows under its heading)."""
    for entry in calibration.metrics.values():
        heading, *figures, verdict = entry.summary_lines()
        out_console.print(Text(heading, style="bold"))
        for line in figures:
            out_console.print(Text(line))
        out_console.print(Text(verdict, style="green" if entry.helps else "yellow"))
