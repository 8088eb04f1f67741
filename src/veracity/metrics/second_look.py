"""A second look, one claim a call, at the claims the shared verdicts leave open.

Citation recall and precision read where the faithfulness verdicts' evidence lies. A
claim the batched verdict found not enough information for is asked again, alone,
against all the contexts, and that answer decides it. A small judge reads one claim
better than several: the 1.5B judge called five sentences copied word for word from
their passage ``not_enough_info`` in the batched call, and ``supported`` asked alone,
four of them with a quote from that passage. Every passage is shown: shown only the
cited one, the same model called supported nearly any claim (docs/benchmarks.md). The
answer still has to be located (:mod:`~veracity.metrics.located`) to count as support.
Supported and contradicted claims stay as they are: asked again, supported claims whose
quote the judge had paraphrased came back with quotes from the wrong passage. Both
judges, through ``verify_claims``; a failed call keeps the batched verdicts and says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from veracity.metrics.base import SampleWork
from veracity.types import ClaimVerdict, Usage, Verdict

__all__ = ["with_second_look"]


async def with_second_look(
    work: SampleWork, verdicts: Mapping[str, ClaimVerdict], texts: Sequence[str]
) -> tuple[dict[str, ClaimVerdict], dict[str, Verdict], Usage, tuple[str, ...]]:
    """``verdicts`` with those of ``texts`` left open replaced by their second look; the
    first verdict of each text looked at again, the usage of asking, and notes."""
    asked = tuple(t for t in dict.fromkeys(texts) if verdicts[t].verdict is Verdict.NOT_ENOUGH_INFO)
    if not asked:
        return dict(verdicts), {}, Usage(), ()
    again = await work.verdicts_alone(asked)
    usage = work.charge(again)
    if again.value is None:
        why = f"the claims left open could not be asked again one at a time: {again.error}"
        return dict(verdicts), {}, usage, (why,)
    looked = {v.claim: v for v in again.value if v.claim in verdicts}
    first = {claim: verdicts[claim].verdict for claim in looked}
    return {**verdicts, **looked}, first, usage, again.notes
