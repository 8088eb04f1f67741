"""With the offline judge, a claim the contexts hold word for word is
supported with a probability near 1, and one whose every content word is absent is near
0 (the fitted model alone left them at 0.915 and 0.06)."""

from __future__ import annotations

import pytest

from veracity import evaluate


@pytest.mark.parametrize(
    ("answer", "low", "high", "verdict"),
    [
        ("It is in Paris.", 0.99, 1.0, "supported"),
        ("The old tower is in Paris, France.", 0.99, 1.0, "supported"),
        ("Bananas grow quickly.", 0.0, 0.01, "not_enough_info"),
    ],
)
def test_word_for_word_and_wholly_absent_claims(
    answer: str, low: float, high: float, verdict: str
) -> None:
    contexts = ["It is in Paris.", "The old tower is in Paris, France, and it is grey."]
    result = evaluate(
        [{"id": "s", "question": "Where is it?", "contexts": contexts, "answer": answer}],
        "faithfulness", "offline", progress=False,
    )  # fmt: skip
    [claim] = result.results[0].details["claims"]
    assert low <= claim["p_supported"] <= high
    assert claim["verdict"] == verdict
