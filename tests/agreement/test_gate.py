"""The gate on agreement through the Python API: specs, checks per metric and system, and
a figure that cannot be computed failing with its reason."""

from __future__ import annotations

import pytest

from tests.agreement import scenario
from tests.html.page import parse
from veracity import EvaluationResult
from veracity.agreement.gate import parse_gate, parse_gates
from veracity.agreement.model import Gate


@pytest.fixture(scope="module")
def result() -> EvaluationResult:
    return scenario.run()


def test_specs() -> None:
    assert parse_gate("auroc=0.8") == Gate("auroc", 0.8)
    assert parse_gate(" Kappa = -0.2 ") == Gate("kappa", -0.2)
    assert parse_gate("κ=0.4") == Gate("kappa", 0.4)
    assert parse_gate("rubric:clarity:weighted_kappa=0.5") == Gate(
        "weighted_kappa", 0.5, "rubric:clarity"
    )
    assert parse_gate("faithfulness:calibrated:auroc=0.9").metric == "faithfulness:calibrated"
    assert len(parse_gates(["auroc=0.8", "faithfulness:auroc=0.9"])) == 2
    for bad in ("ece=0.1", "auroc=nan", "kappa=-2", "=0.8", "auroc=", "spearman=inf"):
        with pytest.raises(ValueError, match=r"--min"):
            parse_gate(bad)


def test_the_lower_bound_decides_per_group(result: EvaluationResult) -> None:
    report = result.agreement(scenario.labels(), resamples=200)
    auroc = report.metrics[0][0].overall.figures.auroc
    assert auroc.value is not None and auroc.ci95 is not None
    # Between the lower bound and the figure: the figure passes, the gate does not.
    between = (auroc.ci95[0] + auroc.value) / 2
    gated = report.gated({"auroc": between})
    (check,) = gated.gates
    assert not check.met and not gated.gates_met
    assert (check.metric, check.system, check.n, check.low) == (
        "faithfulness",
        None,
        30,
        auroc.ci95[0],
    )
    assert report.gated(["auroc=0.5"]).gates_met
    assert report.gates_met  # no gate, nothing missed
    # Grades only: weighted κ cannot be computed on yes/no labels, and the gate fails.
    (graded,) = report.gated(["weighted_kappa=0"]).gates
    assert not graded.met and graded.reason == "weighted κ is computed for grades only"


def test_a_gate_never_passes_on_nothing(result: EvaluationResult) -> None:
    # One class of labels only: there is no AUROC, so no gate on it can pass.
    one_class = result.agreement([{"id": f"s{i}", "faithfulness": 1} for i in range(6)],
                                 resamples=200)  # fmt: skip
    (check,) = one_class.gated(["auroc=0"]).gates
    assert not check.met and check.low is None
    assert check.reason == "needs both positive and negative labels"


def test_a_zero_width_interval_on_few_items_does_not_pass(result: EvaluationResult) -> None:
    from veracity.agreement.html import render_agreement_html

    # Twelve items the score ranks perfectly: every resample does too (1.00–1.00).
    few = [{"id": f"s{i}", "faithfulness": scenario.kind_of(i) == "right"}
           for i in range(18) if scenario.kind_of(i) != "swapped"]  # fmt: skip
    report = result.agreement(few, resamples=200).gated(["auroc=0.7", "kappa=0.5"])
    assert [(c.value, c.met) for c in report.gates] == [(1.0, False), (1.0, False)]
    assert "zero width (1.00–1.00) on 12 item(s), fewer than 30" in str(report.gates[0].reason)
    shown = parse(render_agreement_html(report)).text
    assert "Gates: 2 NOT met" in shown and "zero width" in shown
    # On thirty items the same perfect ranking is evidence enough.
    thirty = [{"id": f"s{i}", "faithfulness": scenario.kind_of(i) == "right"} for i in range(45)
              if scenario.kind_of(i) != "swapped"]  # fmt: skip
    larger = scenario.run(n=45).agreement(thirty, resamples=200)
    assert larger.metrics[0][0].overall.figures.n == 30
    assert larger.gated(["auroc=0.7"]).gates_met
