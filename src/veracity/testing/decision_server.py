"""A fake decision-model server on loopback: System One and OpenAI Decisions, for tests."""

from __future__ import annotations

from veracity.decisions.base import ServerLimits
from veracity.testing._decision_backend import (
    DecisionBackend,
    DecisionBehaviour,
    DecisionLatency,
    DecisionResponder,
    DecisionServerStats,
    Refuse,
)
from veracity.testing._loopback import LoopbackServer
from veracity.testing.decision_mangle import HUGE_BODY_BYTES, DecisionMangleHook, DecisionMangling
from veracity.testing.decision_overlap import OverlapDecider
from veracity.testing.faults import Faults

_NO_FAULTS = Faults()
DEFAULT_MODEL = "fake-decider"


class FakeDecisionServer(LoopbackServer[DecisionBackend]):
    """A fake decision-model HTTP server on ``127.0.0.1`` (a free port), run in a background
    thread. It serves both wire formats at once:

    - **System One**, ``POST {base_url}/systemone`` (as llama.cpp's llama-server, Ollama,
      vLLM serve it): ``{"model", "state", "questions": {NAME: {"type":
      "noul"|"choice"|"score", "instructions", "criteria"}}}`` →
      ``{"model", "answers": {NAME: ...}, "usage": {"input_tokens", "output_tokens": 0}}``,
      answers in the questions' order, a refused question left out. Requests are checked
      as llama-server checks them (422 with a message naming the field; 400 for a body
      that is not JSON); errors are ``{"error": {"code", "message", "type"}}``.
    - **OpenAI Decisions**, ``POST {base_url}/decisions`` (``client.decisions.create`` of
      the ``openai`` SDK parses its replies): ``{"model", "input", "questions": [{"type":
      "predicate"|"choice"|"score", "name", "instructions", "choices"|"levels"}]}`` →
      ``{"model", "answers": [...in order...], "usage": {...}}``, a refused question a
      ``{"type": "refusal", "name"}`` answer; errors in OpenAI's shape (400s naming the
      ``param``).

    Options:

    - ``responder``: answers one question about a state (default
      :class:`~veracity.testing.OverlapDecider`: deterministic probabilities from word
      overlap). A :data:`~veracity.testing.DecisionResponder` returns a probability per
      option, or ``None`` to refuse.
    - ``model``: the model System One replies name (llama-server names its loaded model
      whatever the request says); OpenAI replies echo the request's model.
    - ``limits``: a :class:`~veracity.decisions.ServerLimits` (questions per request,
      options per question, state tokens) for both routes. Default: System One 4096
      questions and 255 options (llama-server), OpenAI 400 and 255. Past them: System One
      413 ``request_too_large_error`` for questions and 422 for options, OpenAI 400
      ``array_above_max_length``, each message naming the limit ("at most 26 are
      supported", "maximum length 400"); ``max_state_tokens`` is enforced as a 400 context
      error. ``limit_status`` (413 or 422, as vLLM and Ollama answer) replaces the status of
      both limit errors on both routes.
    - ``decision_model=False``: a chat model behind the server; both routes answer 501
      ``{"error": {"code": 501, "message": "This model is not a decision model…", "type":
      "not_supported_error"}}``, as llama-server does, before reading the body.
    - ``refuse``: question names to refuse (or a callable on a
      :class:`~veracity.decisions.Question`): OpenAI sends ``{"type": "refusal"}``, System
      One leaves the question out.
    - ``mangling``: every answered request's reply is broken one way — a
      :data:`~veracity.testing.DecisionMangling` (wrong answer types, NaN / negative /
      non-summing / string probabilities, an answer to a question never asked, a missing
      answer, a body of ``huge_bytes``, the request's key echoed) or a callable hook (see
      :func:`~veracity.testing.mangle_decision`). Can be changed while running.
    - ``faults`` (:class:`~veracity.testing.Faults`, drawn from a RNG seeded with ``seed``):
      429 with ``Retry-After`` (System One: whole seconds; OpenAI: decimal seconds and
      ``retry-after-ms``), 500/502/503, dropped connections, bodies that are not JSON or cut
      short. Checked after the request's validation, as llama-server does.
    - ``latency_s``: seconds before answering (a constant, or a function of the request
      body); stopping the server cuts it short.
    - ``api_key``: requests without it (bearer or ``x-api-key``) get 401.
    - ``record_requests=False`` keeps no request bodies.

    Usage: ``usage.input_tokens`` is about four characters a token — the state once (the
    questions share it) plus each question with its options; output tokens are 0.

    Example::

        with FakeDecisionServer(limits=ServerLimits(64, 26)) as server:
            httpx.post(f"{server.base_url}/systemone", json={"state": "...", "questions": {...}})
            assert server.stats.decisions == 1
            assert server.requests[0]["questions"]
    """

    def __init__(  # noqa: PLR0913 - a fake server's behaviours, each with its default
        self,
        responder: DecisionResponder | None = None,
        *,
        model: str = DEFAULT_MODEL,
        limits: ServerLimits | None = None,
        limit_status: int | None = None,
        decision_model: bool = True,
        refuse: Refuse = (),
        mangling: DecisionMangling | DecisionMangleHook | None = None,
        huge_bytes: int = HUGE_BODY_BYTES,
        faults: Faults = _NO_FAULTS,
        seed: int = 0,
        latency_s: DecisionLatency = 0.0,
        api_key: str | None = None,
        record_requests: bool = True,
    ) -> None:
        behaviour = DecisionBehaviour(
            responder=responder if responder is not None else OverlapDecider(),
            model=model,
            limits=limits,
            limit_status=limit_status,
            decision_model=decision_model,
            refuse=refuse,
            mangling=mangling,
            huge_bytes=huge_bytes,
            latency=latency_s,
            api_key=api_key,
        )
        super().__init__(DecisionBackend(behaviour, faults, seed, record_requests=record_requests))

    @property
    def systemone_url(self) -> str:
        """The System One endpoint, ``…/v1/systemone``."""
        return f"{self.base_url}/systemone"

    @property
    def decisions_url(self) -> str:
        """The OpenAI Decisions endpoint, ``…/v1/decisions``."""
        return f"{self.base_url}/decisions"

    # behaviour -------------------------------------------------------------------------

    @property
    def behaviour(self) -> DecisionBehaviour:
        """The settings in force; change their fields at any time (``mangling``,
        ``refuse``, ``limits``, ``decision_model``…)."""
        return self._backend.behaviour

    # observations ----------------------------------------------------------------------

    @property
    def stats(self) -> DecisionServerStats:
        """A snapshot of the counters since start (or the last :meth:`reset_stats`)."""
        return self._backend.stats.snapshot()
