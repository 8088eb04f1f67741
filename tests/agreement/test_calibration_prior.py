"""The calibration's prior: word overlap (the floor) is barely shrunk, so a fit on few
labels starts from it and the judge's other signals move it only as far as the labels
show. Synthetic items where overlap carries the signal and the judge's signals are noise."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import roc_auc_score

from veracity.agreement.calibrate import PRIOR_WEIGHTS, fit_logistic
from veracity.agreement.calibration_file import LogisticModel
from veracity.agreement.signals import FAITHFULNESS_SIGNALS

OVERLAP = FAITHFULNESS_SIGNALS.index("answer_overlap")


def items(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.5
    x = rng.random((n, len(FAITHFULNESS_SIGNALS)))  # the judge's signals: noise
    x[:, OVERLAP] = np.clip(0.45 + 0.2 * y + rng.normal(0, 0.15, n), 0, 1)
    return x, y


def test_with_few_labels_the_fit_ranks_close_to_overlap() -> None:
    floor, prior, plain = [], [], []
    for seed in range(8):
        x, y = items(30, seed)
        test_x, test_y = items(3000, 100 + seed)
        floor.append(roc_auc_score(test_y, test_x[:, OVERLAP]))
        with_prior = fit_logistic(FAITHFULNESS_SIGNALS)(x, y)
        without = fit_logistic(FAITHFULNESS_SIGNALS, prior={})(x, y)
        assert isinstance(with_prior, LogisticModel) and isinstance(without, LogisticModel)
        prior.append(roc_auc_score(test_y, with_prior.predict(test_x)))
        plain.append(roc_auc_score(test_y, without.predict(test_x)))
        # The overlap's effect per unit is larger with the prior than without it.
        per_unit = [m.coef[OVERLAP] / m.scale[OVERLAP] for m in (with_prior, without)]
        assert per_unit[0] > per_unit[1] > 0
        assert prior[-1] >= plain[-1]
    # Eleven noise signals on 30 labels cost the plain fit 0.09 AUROC; the prior, 0.015.
    assert np.mean(prior) >= np.mean(floor) - 0.025
    assert np.mean(prior) >= np.mean(plain) + 0.05


def test_the_prior_names_signals_that_exist() -> None:
    # A misspelt name would weigh nothing, silently.
    assert set(PRIOR_WEIGHTS) <= set(FAITHFULNESS_SIGNALS)
