"""The prompt behind the rubric metric: independent 1–5 axes, scored in one call."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Annotated

from pydantic import BeforeValidator, ValidationInfo, model_validator

from veracity.prompts._rules import data_rule
from veracity.prompts.reply import (
    Reply,
    Text,
    as_text,
    compact,
    context,
    note,
    preview,
    read_score,
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


def _one_to_five(raw: object, info: ValidationInfo) -> int:
    """A 1–5 score (``"8/10"`` is 4, noted); :class:`ValueError` when it is not one."""
    value = read_score(raw, info, "score", 5)
    if value != round(value):
        raise ValueError(f"the score {preview(as_text(raw))} is not an integer from 1 to 5")
    return round(value)


class DimensionScoreOutput(Reply):
    dimension: Text = synonyms("dimension criterion name", "")
    reasoning: Text = synonyms("reasoning reason explanation", "")
    score: Annotated[int, BeforeValidator(_one_to_five)] = synonyms("score rating", ge=1, le=5)


class RubricScoresOutput(Reply):
    scores: list[DimensionScoreOutput]

    @model_validator(mode="after")
    def _one_per_dimension(self, info: ValidationInfo) -> RubricScoresOutput:
        """One score for each dimension of the rubric asked about (``names`` in the
        reader's context), in its order; names compared in :func:`compact` form, the
        first of two scores kept, other names dropped (all noted)."""
        names: list[str] | None = context(info, "names")
        if names is None:
            return self  # an example, not a reply
        found: dict[str, DimensionScoreOutput] = {}
        for score in self.scores:
            name = next((n for n in names if compact(n) == compact(score.dimension)), None)
            if name is None:
                rubric = context(info, "rubric")
                note(info, f"dropped {preview(score.dimension)}: not a dimension of {rubric!r}")
            elif name in found:
                note(info, f"kept the first of two scores for {name}")
            else:
                found[name] = score.model_copy(update={"dimension": name})
        missing = [f"'{n}'" for n in names if n not in found]
        if missing:
            raise ValueError(f"no score for {', '.join(missing)}")
        self.scores = [found[n] for n in names]
        return self


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
