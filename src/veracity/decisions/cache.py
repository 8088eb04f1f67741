"""A decision model behind the judge-response cache: each question's answer kept on its
own, so a request whose questions were all answered before makes no request, and one
with some answered asks only the others."""

from __future__ import annotations

import asyncio
import json
from typing import Literal

from veracity.chat.base import ChatReply
from veracity.chat.cache import NOT_IN_KEY as CHAT_NOT_IN_KEY
from veracity.chat.cache import CachedModel, InFlight, ReplyStore, key_of
from veracity.decisions.base import (
    Answer,
    DecisionModel,
    DecisionReply,
    DecisionRequest,
    Question,
    ServerLimits,
)
from veracity.decisions.reading import UNANSWERED, refusal
from veracity.types import Usage

# Settings that change how requests are made, not what a question's answer says: the
# limits a request is split at, and what was learnt of them, with the chat models' own.
NOT_IN_KEY = CHAT_NOT_IN_KEY | {"limits", "learned"}


def decision_key(model: DecisionModel, state: str, question: Question, iteration: int) -> str:
    """A digest of the model and its settings, the state, the question (its kind,
    instructions and options, not its name: two questions asking the same share an answer)
    and the iteration index: each iteration is its own key."""
    asked = [
        question.kind,
        question.instructions,
        [[option.value, option.description] for option in question.options],
    ]
    return "decision:" + key_of(
        model.describe(), NOT_IN_KEY, state=state, question=asked, iteration=iteration
    )


def _stored(answer: Answer) -> str:
    return json.dumps(
        {
            "kind": answer.kind,
            "probabilities": [list(pair) for pair in answer.probabilities],
            "confidence": answer.confidence,
        }
    )


def _restored(text: str, question: Question) -> Answer | None:
    """The answer stored for ``question``; ``None`` when the entry is not one for it (of
    another version, or damaged): it is asked again."""
    try:
        stored = json.loads(text)
        probabilities = tuple((str(v), float(p)) for v, p in stored["probabilities"])
        confidence = stored["confidence"]
        kind = stored["kind"]
    except (ValueError, KeyError, TypeError):
        return None
    values = tuple(value for value, _ in probabilities)
    if kind != question.kind or values != question.option_values():
        return None
    if confidence is not None and not isinstance(confidence, int | float):
        return None
    return Answer(question.name, question.kind, probabilities, confidence)


class CachedDecisions(CachedModel[DecisionModel]):
    """A decision model behind the response cache (a :class:`~veracity.chat.cache.
    ResponseCache`, or a Ray worker's proxy to the driver's): each question's answer is
    stored as JSON in a reply of its own; refusals are not stored (the next run asks
    again). A request answered wholly from the cache makes no request and counts one cached
    call; otherwise only the questions not cached are asked, in one request (split at the
    model's limits as ever).

    A question already being asked is not asked again at the same time, as a chat prompt
    in flight is not: its answer is awaited from the request in flight (two systems giving
    the same answer about the same contexts share one answer). If that request fails or
    the question is refused, it is asked again here.

    A model that learns its server's limits starts from those an earlier run learnt, and
    what it learns is remembered for the next, as the chat models' response cache does for
    a chat model's negotiated options."""

    def __init__(
        self, model: DecisionModel, cache: ReplyStore, scope: Literal["shared", "run"] = "shared"
    ) -> None:
        super().__init__(model, cache, scope)
        # Each question being asked now, by its key, and its answer to come as stored.
        self._in_flight: InFlight[str] = InFlight()

    @property
    def limits(self) -> ServerLimits:
        return self.model.limits

    async def decide(self, request: DecisionRequest, *, iteration: int) -> DecisionReply:
        keys = {
            q.name: decision_key(self.model, request.state, q, iteration) for q in request.questions
        }
        answers: dict[str, Answer] = {}
        model_name = self.model.name
        for question in request.questions:
            cached = await self.cache.fetch(keys[question.name])
            answer = _restored(cached.text, question) if cached is not None else None
            if answer is not None and cached is not None:
                answers[question.name] = answer
                model_name = cached.model
        missing = [q for q in request.questions if q.name not in answers]
        in_flight = {
            q.name: asking
            for q in missing
            if (asking := self._in_flight.pending(keys[q.name])) is not None
        }
        replies = []
        mine = tuple(q for q in missing if q.name not in in_flight)
        if mine:
            replies.append(await self._ask(request.state, mine, keys, iteration))
        for question in missing:
            if question.name in in_flight:
                # Shielded: a caller cancelled while waiting does not cancel the request.
                stored = await asyncio.shield(in_flight[question.name])
                answer = _restored(stored, question) if stored is not None else None
                if answer is not None:
                    answers[question.name] = answer
        left = tuple(q for q in missing if q.name in in_flight and q.name not in answers)
        if left:
            replies.append(await self._ask(request.state, left, keys, iteration))
        for reply in replies:
            answers.update({name: a for name, a in reply.answers.items() if name not in answers})
        return DecisionReply(
            answers={
                q.name: answers.get(q.name) or refusal(q, UNANSWERED) for q in request.questions
            },
            usage=sum((r.usage for r in replies), Usage()) if replies else Usage(cached_calls=1),
            latency_s=sum(r.latency_s for r in replies),
            model=replies[0].model if replies else model_name,
            notes=tuple(dict.fromkeys(note for r in replies for note in r.notes)),
        )

    async def _ask(
        self, state: str, questions: tuple[Question, ...], keys: dict[str, str], iteration: int
    ) -> DecisionReply:
        """``questions`` asked of the model, each marked in flight until answered; answers
        that are no refusal are stored."""
        finishes = {
            q.name: self._in_flight.start(keys[q.name])
            for q in questions
            if self._in_flight.pending(keys[q.name]) is None
        }
        stored: dict[str, str] = {}
        try:
            reply = await self.model.decide(DecisionRequest(state, questions), iteration=iteration)
            for question in questions:
                answer = reply.answers.get(question.name)
                if answer is not None and not answer.refused:
                    stored[question.name] = _stored(answer)
                    kept = ChatReply(stored[question.name], Usage(), 0.0, model=reply.model)
                    self.cache.put(keys[question.name], kept, self.model.name)
            return reply
        finally:
            # Learnt on the way, even by a request that then failed.
            self.remember_learnt()
            for name, finish in finishes.items():
                finish(stored.get(name))
