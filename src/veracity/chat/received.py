"""The one gate every reply of an endpoint passes before veracity uses, caches, stores or
shows it: text only, bounded in size, scrubbed of keys."""

from __future__ import annotations

from veracity._scrub import scrub_secrets
from veracity.dataset.fields import a_json_type
from veracity.transport import CallFailedError

# A judge's reply is a JSON object of claims or verdicts: a few kilobytes, at most a few
# hundred. Past this it is a runaway or hostile reply that would fill the disk and memory
# (it is kept in results, the run's store and the cache) for nothing a parser could use.
MAX_REPLY_CHARS = 4 * 1024 * 1024


def received_text(text: object, key: str | None, what: str = "the reply's text") -> str:
    """``text`` as veracity may keep it: a string within :data:`MAX_REPLY_CHARS`, without
    ``key`` or anything shaped like a credential (an endpoint or gateway may quote them,
    in a successful reply as well as in an error). Raises :class:`CallFailedError`
    otherwise, so the question becomes a judge error and nothing of the reply is kept."""
    if not isinstance(text, str):
        raise CallFailedError(f"the endpoint's reply is unusable: {what} is {a_json_type(text)}")
    if len(text) > MAX_REPLY_CHARS:
        raise CallFailedError(
            f"the endpoint's reply is {len(text):,} characters long, over the bound of "
            f"{MAX_REPLY_CHARS:,} a reply may take: it was not kept"
        )
    return scrub_secrets(text, key)
