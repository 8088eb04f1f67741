"""Token log-probabilities of a judge's reply, as endpoints that expose them return them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TokenLogprob:
    """One generated token, its log-probability, and the most likely tokens at its place
    (``top``: ``(token, logprob)`` pairs, the generated one usually among them)."""

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()

    def to_json(self) -> list[object]:
        return [self.token, self.logprob, [list(pair) for pair in self.top]]

    @classmethod
    def from_json(cls, raw: list[object]) -> TokenLogprob:
        token, logprob, top = raw
        assert isinstance(token, str) and isinstance(logprob, int | float)
        assert isinstance(top, list)
        return cls(token, float(logprob), tuple((str(t), float(p)) for t, p in top))
