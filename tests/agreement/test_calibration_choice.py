"""The calibration keeps a combination of signals only where it ranks the labels better,
out of fold, than the judge's score or word overlap alone. Synthetic items in which one
signal carries the labels and the others are noise."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from veracity.agreement.calibrate import (
    CHOSEN,
    SINGLE_SIGNALS,
    _candidates,
    fit_best,
    fit_logistic,
)
from veracity.agreement.calibration_file import LogisticModel
from veracity.agreement.signals import FAITHFULNESS_SIGNALS, SCORE_ONLY

# Rare signals of answers without claims: absent (0) from these items, as from most real
# ones.
ABSENT = ("yes_no_reply", "abstention")


def noise(rng: np.random.Generator, n: int) -> np.ndarray:
    """Uniform noise in every signal's column but the absent ones' (zeros)."""
    x = np.zeros((n, len(FAITHFULNESS_SIGNALS)))
    x[:, [i for i, s in enumerate(FAITHFULNESS_SIGNALS) if s not in ABSENT]] = rng.random(
        (n, len(FAITHFULNESS_SIGNALS) - len(ABSENT))
    )
    return x


def items(n: int, seed: int, carrier: str, noise_sd: float = 0.2) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.5
    x = noise(rng, n)
    column = FAITHFULNESS_SIGNALS.index(carrier)
    x[:, column] = np.clip(0.4 + 0.2 * y + rng.normal(0, noise_sd, n), 0, 1)
    return x, y


@pytest.mark.parametrize("carrier", SINGLE_SIGNALS)
def test_one_good_signal_among_noise_is_mostly_kept_alone(carrier: str) -> None:
    column = FAITHFULNESS_SIGNALS.index(carrier)
    alone, chosen_auroc, combined_auroc, carrier_auroc = 0, [], [], []
    for seed in range(10):
        x, y = items(40, seed, carrier)
        chosen = fit_best(x, y, FAITHFULNESS_SIGNALS)
        test_x, test_y = items(2000, 100 + seed, carrier)
        columns = [FAITHFULNESS_SIGNALS.index(s) for s in chosen.model.signals]
        chosen_auroc.append(roc_auc_score(test_y, chosen.model.predict(test_x[:, columns])))
        combined = fit_logistic(FAITHFULNESS_SIGNALS)(x, y)
        combined_auroc.append(roc_auc_score(test_y, combined.predict(test_x)))
        carrier_auroc.append(roc_auc_score(test_y, test_x[:, column]))
        if chosen.model.signals == (carrier,) and isinstance(chosen.model, LogisticModel):
            alone += 1
            # One signal in a logistic map keeps its ranking exactly.
            assert chosen_auroc[-1] == pytest.approx(carrier_auroc[-1])
    # Out of fold on 40 labels, noise sometimes ranks as well as the signal; then the
    # combination is kept.
    assert alone >= 7
    assert np.mean(chosen_auroc) >= np.mean(combined_auroc) + 0.01
    assert np.mean(chosen_auroc) >= np.mean(carrier_auroc) - 0.03


def test_two_signals_that_each_see_half_are_combined() -> None:
    rng = np.random.default_rng(3)
    n = 60
    y = rng.random(n) < 0.5
    x = noise(rng, n)
    # The score sees the labels on the first half of the items, overlap on the second.
    for column, rows in (("score", slice(0, n // 2)), ("answer_overlap", slice(n // 2, n))):
        index = FAITHFULNESS_SIGNALS.index(column)
        x[rows, index] = 0.3 + 0.4 * y[rows] + rng.normal(0, 0.05, n // 2)
    chosen = fit_best(x, y, FAITHFULNESS_SIGNALS)
    assert isinstance(chosen.model, LogisticModel)
    assert len(chosen.model.signals) == len(FAITHFULNESS_SIGNALS)


def test_a_metric_with_one_signal_has_no_duplicate_candidate() -> None:
    rng = np.random.default_rng(4)
    y = rng.random(30) < 0.5
    x = (0.3 + 0.4 * y + rng.normal(0, 0.2, 30)).reshape(-1, 1)
    chosen = fit_best(x, y, SCORE_ONLY)
    assert chosen.model.signals == ("score",)
    assert len(chosen.out_of_fold) == 30
    # The logistic on all signals is the one on the score: not a third candidate.
    assert len(_candidates(SCORE_ONLY, CHOSEN)) == 2
    assert len(_candidates(FAITHFULNESS_SIGNALS, CHOSEN)) == 2 + len(SINGLE_SIGNALS)


def test_single_signals_exist() -> None:
    assert set(SINGLE_SIGNALS) <= set(FAITHFULNESS_SIGNALS)
