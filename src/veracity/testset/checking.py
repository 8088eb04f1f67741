"""Checking a generated item: is its reference supported by the chunks it rests on?

The same two judge questions as faithfulness: the reference's claims are extracted, then
verified against the chunks; the item is kept when the supported fraction reaches the
threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from veracity.judges import Judge
from veracity.testset.defaults import DEFAULT_MIN_SUPPORT
from veracity.types import ClaimVerdict, Usage, Verdict


@dataclass(frozen=True)
class SupportCheck:
    """The verdict on one item. ``reason`` is ``None`` when it is kept, else why not:
    ``unsupported``, ``no_claims`` (nothing in the reference to check) or ``judge_error``."""

    reason: str | None
    message: str
    support: float | None = None
    verdicts: tuple[ClaimVerdict, ...] = ()
    usage: Usage = field(default_factory=Usage)

    @property
    def kept(self) -> bool:
        return self.reason is None


async def check_support(
    judge: Judge,
    question: str,
    reference: str,
    contexts: Sequence[str],
    *,
    min_support: float = DEFAULT_MIN_SUPPORT,
    iteration: int = 0,
) -> SupportCheck:
    """Whether ``reference`` is supported by ``contexts`` at ``min_support`` or above."""
    extracted = await judge.extract_claims(question, reference, iteration=iteration)
    usage = extracted.usage
    if not extracted.ok or extracted.value is None:
        return SupportCheck("judge_error", f"claim extraction: {extracted.error}", usage=usage)
    claims = extracted.value
    if not claims:
        return SupportCheck("no_claims", "the reference states no checkable claim", usage=usage)
    verified = await judge.verify_claims(claims, contexts, iteration=iteration)
    usage += verified.usage
    if not verified.ok or verified.value is None:
        return SupportCheck("judge_error", f"claim verification: {verified.error}", usage=usage)
    verdicts = verified.value
    supported = sum(v.verdict == Verdict.SUPPORTED for v in verdicts)
    support = supported / len(verdicts)
    if support + 1e-9 < min_support:
        failing = next(v for v in verdicts if v.verdict != Verdict.SUPPORTED)
        message = (
            f"{supported} of {len(verdicts)} claims supported (need {min_support:.0%}); "
            f"{failing.verdict.value}: {failing.claim!r}"
        )
        return SupportCheck("unsupported", message, support, verdicts, usage)
    return SupportCheck(None, f"{supported} of {len(verdicts)} claims supported", support,
                        verdicts, usage)  # fmt: skip
