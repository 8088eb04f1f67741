"""A decision model behind the judge-response cache: each question's answer kept on its
own, so a request whose questions were all answered before makes no request, and one
with some answered asks only the others."""

from __future__ import annotations

import json

from veracity.chat.base import ChatReply
from veracity.chat.cache import NOT_IN_KEY as CHAT_NOT_IN_KEY
from veracity.chat.cache import CachedModel, key_of
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

    A model that learns its server's limits starts from those an earlier run learnt, and
    what it learns is remembered for the next, as the chat models' response cache does for
    a chat model's negotiated options."""

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
        missing = tuple(q for q in request.questions if q.name not in answers)
        if not missing:
            return DecisionReply(
                answers=answers, usage=Usage(cached_calls=1), latency_s=0.0, model=model_name
            )
        try:
            reply = await self.model.decide(
                DecisionRequest(request.state, missing), iteration=iteration
            )
        finally:
            # Learnt on the way, even by a request that then failed.
            self.remember_learnt()
        for question in missing:
            answer = reply.answers.get(question.name)
            if answer is not None and not answer.refused:
                stored = ChatReply(_stored(answer), Usage(), latency_s=0.0, model=reply.model)
                self.cache.put(keys[question.name], stored, self.model.name)
        answers.update(reply.answers)
        return DecisionReply(
            answers={
                q.name: answers.get(q.name) or refusal(q, UNANSWERED) for q in request.questions
            },
            usage=reply.usage,
            latency_s=reply.latency_s,
            model=reply.model,
            notes=reply.notes,
        )
