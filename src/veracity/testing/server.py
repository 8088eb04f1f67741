"""An OpenAI- and Anthropic-compatible fake LLM server on loopback, for tests."""

from __future__ import annotations

from veracity.testing._backend import Backend
from veracity.testing._batches import BatchBehaviour
from veracity.testing._loopback import LoopbackServer
from veracity.testing._request import Latency, Responder
from veracity.testing.faults import Faults
from veracity.testing.rule_based import RuleBasedResponder
from veracity.testing.stats import ServerStats

_NO_FAULTS = Faults()


class FakeLLMServer(LoopbackServer[Backend]):
    """A fake LLM HTTP server on ``127.0.0.1`` (a free port), run in a background thread.

    Endpoints: ``POST /v1/chat/completions`` (OpenAI), ``POST /v1/messages`` (Anthropic,
    with forced tool use) and ``POST /v1/embeddings`` (hashed bag-of-words, 64 dims), and
    the batch APIs of both (OpenAI: ``/v1/files``, ``/v1/batches``; Anthropic:
    ``/v1/messages/batches``), whose requests are answered as live ones are; ``batches``
    (a :class:`~veracity.testing.BatchBehaviour`) sets their delay, failures and expiry.
    Replies come from ``responder`` (default :class:`RuleBasedResponder`, which answers
    veracity's own prompts); ``faults`` injects rate limits, server errors, dropped
    connections and broken bodies or contents, drawn from a RNG seeded with ``seed``.
    With ``api_key``, requests without that key (bearer or ``x-api-key``) get HTTP 401.
    ``supports_json_schema=False`` / ``supports_logprobs=False`` reject those options with
    ``rejection_status`` (400; 500 answers as llama-cpp-python's server does), and
    ``supports_schema_in_json_mode=False`` a ``schema`` beside ``{"type": "json_object"}``
    (which llama.cpp's servers take). Replies
    longer than a request's ``max_tokens`` (about four characters a token) are cut there,
    with ``finish_reason`` "length"; ``logprobs`` are returned when asked for.
    ``record_requests=False`` keeps no request bodies (for long load runs).

    Example::

        with FakeLLMServer(faults=Faults(status_5xx=0.2), seed=1) as server:
            client = openai.OpenAI(base_url=server.base_url, api_key="test")
            ...
            assert server.stats.completions == 10
    """

    def __init__(  # noqa: PLR0913 - a fake server's behaviours, each with its default
        self,
        responder: Responder | None = None,
        *,
        latency_s: Latency = 0.0,
        faults: Faults = _NO_FAULTS,
        seed: int = 0,
        supports_json_schema: bool = True,
        supports_logprobs: bool = True,
        supports_schema_in_json_mode: bool = True,
        rejection_status: int = 400,
        api_key: str | None = None,
        record_requests: bool = True,
    ) -> None:
        backend = Backend(
            responder if responder is not None else RuleBasedResponder(),
            latency=latency_s,
            faults=faults,
            seed=seed,
            supports_json_schema=supports_json_schema,
            supports_logprobs=supports_logprobs,
            supports_schema_in_json_mode=supports_schema_in_json_mode,
            rejection_status=rejection_status,
            api_key=api_key,
            record_requests=record_requests,
        )
        super().__init__(backend)

    @property
    def anthropic_base_url(self) -> str:
        """The server root, as the Anthropic SDK wants it (it appends ``/v1/messages``)."""
        return self.root_url

    # behaviour -------------------------------------------------------------------------

    @property
    def responder(self) -> Responder:
        return self._backend.responder

    @responder.setter
    def responder(self, responder: Responder) -> None:
        self._backend.responder = responder

    @property
    def batches(self) -> BatchBehaviour:
        """How the batch endpoints behave; change its fields at any time."""
        return self._backend.batches.behaviour

    # observations ----------------------------------------------------------------------

    @property
    def stats(self) -> ServerStats:
        """A snapshot of the counters since start (or the last :meth:`reset_stats`)."""
        return self._backend.stats.snapshot()

    @property
    def batches_created(self) -> int:
        """Batches created (both APIs) since start or the last :meth:`reset_stats`."""
        return self._backend.batches.created

    @property
    def batch_data_kept(self) -> int:
        """Batch files (OpenAI) and batches (Anthropic) stored and not yet deleted."""
        return self._backend.batches.kept()

    def reset_stats(self) -> None:
        """Zero the counters and forget the recorded requests."""
        super().reset_stats()
        self._backend.batches.reset()
