"""The prompt behind the rubric metric: independent 1–5 axes, scored in one call."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from pydantic import BaseModel, ValidationInfo

from veracity.prompts._rules import data_rule
from veracity.prompts.reply import (
    REASONS,
    Number,
    Reply,
    Text,
    as_text,
    compact,
    context,
    lookup,
    note,
    preview,
    read_number,
    synonyms,
)
from veracity.prompts.template import (
    Example,
    OutputSpec,
    PromptTemplate,
    numbered_block,
    untrusted,
)
from veracity.types.judgements import Rubric, RubricDimension

RUBRIC_ID_PREFIX = "rubric:"


class DimensionScoreOutput(Reply):
    dimension: Text = synonyms("dimension criterion name", "")
    reasoning: Text = synonyms(f"reasoning {REASONS}", "")
    score: int = synonyms("score rating", ge=1, le=5)


def _entries(value: object) -> list[tuple[str, object, object]]:
    """``(name as written, score, reasoning)`` of every score in ``value``: a list of
    ``{"dimension", "score", "reasoning"}`` objects (bare or under ``scores``), or a
    ``{name: {"score", "reasoning"}}`` mapping."""
    item = DimensionScoreOutput
    if isinstance(value, dict) and isinstance(listed := lookup(value, ("scores",)), list):
        value = listed
    if isinstance(value, list):
        return [
            (
                as_text(item.given("dimension", v)),
                item.given("score", v),
                item.given("reasoning", v),
            )
            if isinstance(v, dict)
            else (f"a non-object item {as_text(v)!r}", None, None)
            for v in value
        ]
    entries: list[tuple[str, object, object]] = []
    for key, written in value.items() if isinstance(value, dict) else ():
        v = written.model_dump() if isinstance(written, BaseModel) else written
        if isinstance(v, dict):
            entries.append((key, item.given("score", v), item.given("reasoning", v)))
        else:
            entries.append((key, None, None))
    return entries


def named_scores(
    value: object, names: Mapping[str, str], info: ValidationInfo, unknown: Callable[[str], str]
) -> dict[str, tuple[Number, str]]:
    """Each canonical name's score (as written) and reasoning, from a reply of any shape
    (see :func:`_entries`); ``names`` maps :func:`compact` names to canonical ones. A key
    naming none is noted in ``unknown``'s words; a name without a score fails, naming it."""
    found: dict[str, tuple[object, str]] = {}
    for written, score, reasoning in _entries(value):
        name = names.get(compact(written))
        if name is None:
            note(info, unknown(written or "an item without a name"))
            continue
        old_score, old_reasoning = found.get(name, (None, ""))
        if score is not None and old_score is not None:
            note(info, f"kept the first of two scores for {name}")
        found[name] = (
            score if old_score is None else old_score,
            old_reasoning or as_text(reasoning),
        )
    wanted = list(dict.fromkeys(names.values()))
    missing = [f"'{n}'" for n in wanted if found.get(n, (None,))[0] is None]
    if missing:
        raise ValueError(f"no score for {', '.join(missing)}")
    scores = {}
    for name in wanted:
        score, reasoning = found[name]
        number = read_number(score)
        if number is None:
            raise ValueError(f"the score {preview(as_text(score))} is not a number")
        scores[name] = (number, reasoning)
    return scores


def _one_to_five(number: Number, name: str, info: ValidationInfo) -> int:
    """A 1–5 score (``"8/10"`` is 4, noted); :class:`ValueError` when it is not one."""
    value = number.value
    if number.scale is not None and number.scale != 5:
        value = value / number.scale * 5
        if value == round(value):
            note(info, f"{name}: read {number.text!r} as {round(value)}/5")
    if value != round(value) or not 1 <= value <= 5:
        raise ValueError(f"the {name} score {number.text!r} is not an integer from 1 to 5")
    return round(value)


class RubricScoresOutput(Reply):
    scores: list[DimensionScoreOutput]

    @classmethod
    def shape(cls, value: object, info: ValidationInfo) -> object:
        """One score for each of the rubric's dimensions (``names`` in the reader's
        context), in the rubric's order, from a reply of any shape."""
        rubric, names = context(info, "rubric"), context(info, "names")
        if names is None:
            return value

        def unknown(key: str) -> str:
            return f"dropped {preview(key)}: not a dimension of rubric {rubric!r}"

        found = named_scores(value, {compact(n): n for n in names}, info, unknown)
        return {
            "scores": [
                {"dimension": n, "reasoning": r, "score": _one_to_five(number, n, info)}
                for n, (number, r) in found.items()
            ]
        }


DEFAULT_RUBRIC = Rubric(
    name="default",
    dimensions=(
        RubricDimension(
            name="faithfulness",
            description="Is every statement of the answer supported by the retrieved contexts?",
            levels={
                5: "Every statement is fully supported by the contexts.",
                4: "Nearly every statement is supported; a minor detail goes slightly beyond "
                "the contexts without changing the meaning.",
                3: "The main point is supported, but several statements are not supported by "
                "the contexts.",
                2: "Most statements are not supported by the contexts, though none "
                "contradicts them.",
                1: "The answer contradicts the contexts, or is pure hallucination.",
            },
        ),
        RubricDimension(
            name="completeness",
            description=(
                "Does the answer explain why it fits the user's need, with reasoning, rather "
                "than only listing facts or items?"
            ),
            levels={
                5: "It meets the need and explains why the answer fits it, with clear "
                "reasoning tied to the question.",
                4: "It meets the need and explains why it fits, but the reasoning is brief or "
                "partly missing.",
                3: "It meets the need but explains little; the reasoning is mostly implicit.",
                2: "It gives relevant facts or items with almost no explanation of why they "
                "fit the need.",
                1: "A bare list or a bare fact, with no reasoning at all.",
            },
        ),
    ),
    default_pass_min=4,
)


def _describe(rubric: Rubric) -> str:
    lines = [f"Rubric {rubric.name!r}:"]
    for dimension in rubric.dimensions:
        lines.append(f"\n## {dimension.name}: {dimension.description}")
        lines.extend(f"{level}: {dimension.levels[level]}" for level in range(5, 0, -1))
    return "\n".join(lines)


def _system(rubric: Rubric) -> str:
    names = ", ".join(f"`{d.name}`" for d in rubric.dimensions)
    return (
        "You grade an answer to a question on a rubric. Each dimension is an independent "
        "axis, scored from 1 to 5: judge each on its own, and never let one dimension's "
        "score change another's. Where a dimension concerns facts, the retrieved contexts are "
        "the only source of truth. "
        f"Give one entry per dimension, in this order: {names}. For each, write "
        "`dimension` (its name exactly), then `reasoning` (what in the answer and the "
        "contexts decides the level), then `score` (the integer level whose description "
        "fits best). Do not compute any overall score.\n"
        + data_rule("question", "answer", "context")
        + "\n\n"
        + _describe(rubric)
    )


def _schema_name(rubric_name: str) -> str:
    """A json_schema name OpenAI accepts (``[A-Za-z0-9_-]{1,64}``): no colon."""
    return ("rubric_" + re.sub(r"[^A-Za-z0-9_-]", "_", rubric_name))[:64]


@dataclass(frozen=True)
class RubricTemplate(PromptTemplate):
    """A rubric's template: id ``rubric:<name>``, output schema named ``rubric_<name>``."""

    @cached_property
    def output(self) -> OutputSpec:
        name = _schema_name(self.id.removeprefix(RUBRIC_ID_PREFIX))
        return OutputSpec(name, self.output_model.model_json_schema(), self.max_tokens)


def render_rubric(question: str, answer: str, contexts: Sequence[str]) -> dict[str, str]:
    """The blocks of any :func:`rubric_template`."""
    return {
        "question": untrusted("question", question),
        "answer": untrusted("answer", answer),
        "contexts": numbered_block("contexts", "context", list(contexts)),
    }


_EXAMPLE_TASK = render_rubric(
    "Who built the Eiffel Tower?",
    "Gustave Eiffel's company built it.",
    ("The company of Gustave Eiffel designed and built the tower, finished in 1889.",),
)
# The default rubric's worked example; a user's rubric is shown its own dimensions' names.
_DEFAULT_EXAMPLE = {
    "faithfulness": ("The contexts say Gustave Eiffel's company built it.", 5),
    "completeness": ("It names the builder but explains nothing beyond that.", 2),
}


def _example(rubric: Rubric) -> Example:
    scores = []
    for dimension in rubric.dimensions:
        reasoning, score = _DEFAULT_EXAMPLE.get(
            dimension.name, (f"What in the answer and the contexts decides {dimension.name}.", 4)
        )
        scores.append(DimensionScoreOutput(dimension=dimension.name, reasoning=reasoning,
                                           score=score))  # fmt: skip
    return Example(_EXAMPLE_TASK, RubricScoresOutput(scores=scores))


_CACHE: dict[str, RubricTemplate] = {}


def rubric_template(rubric: Rubric) -> PromptTemplate:
    """The template that scores ``rubric`` (cached by its name and dimensions).

    The dimensions, descriptions and levels are in the system text, so any change to them
    changes the fingerprint; the pass rule is not (veracity applies it, not the judge).
    """
    key = rubric.model_dump_json(include={"name", "dimensions"})
    template = _CACHE.get(key)
    if template is None:
        template = RubricTemplate(
            id=RUBRIC_ID_PREFIX + rubric.name,
            version=2,
            system=_system(rubric),
            user="{question}\n{answer}\n{contexts}",
            output_model=RubricScoresOutput,
            examples=(_example(rubric),),
            max_tokens=96 + 160 * len(rubric.dimensions),
        )
        _CACHE[key] = template
    return template


DEFAULT_RUBRIC_TEMPLATE = rubric_template(DEFAULT_RUBRIC)
