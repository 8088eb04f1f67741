"""The rubric prompt: the default rubric, per-rubric templates, caching and fingerprints."""

from __future__ import annotations

import pytest

from veracity.prompts import (
    ALL_TEMPLATES,
    DEFAULT_RUBRIC,
    DEFAULT_RUBRIC_TEMPLATE,
    RubricScoresOutput,
    render_rubric,
    rubric_template,
)
from veracity.types import Rubric, RubricDimension

LEVELS = {5: "perfect", 4: "good", 3: "fair", 2: "poor", 1: "bad"}


def _rubric(name: str = "support", description: str = "Is every fact right?") -> Rubric:
    return Rubric(
        name=name,
        dimensions=(
            RubricDimension(name="accuracy", description=description, levels=LEVELS),
            RubricDimension(name="tone", description="Is it polite?", levels=LEVELS),
        ),
    )


def test_default_rubric_has_the_two_spec_axes_with_five_levels() -> None:
    assert [d.name for d in DEFAULT_RUBRIC.dimensions] == ["faithfulness", "completeness"]
    faithfulness, completeness = DEFAULT_RUBRIC.dimensions
    assert set(faithfulness.levels) == set(completeness.levels) == {1, 2, 3, 4, 5}
    assert "fully supported" in faithfulness.levels[5]
    assert "contradicts" in faithfulness.levels[1] and "hallucination" in faithfulness.levels[1]
    assert "why" in completeness.levels[5] and "reasoning" in completeness.levels[5]
    assert "bare list" in completeness.levels[1] and "no reasoning" in completeness.levels[1]
    assert DEFAULT_RUBRIC.minimum("faithfulness") == DEFAULT_RUBRIC.minimum("completeness") == 4


def test_the_system_text_holds_every_dimension_and_level() -> None:
    template = rubric_template(DEFAULT_RUBRIC)
    for dimension in DEFAULT_RUBRIC.dimensions:
        assert f"## {dimension.name}: {dimension.description}" in template.system
        for level, text in dimension.levels.items():
            assert f"{level}: {text}" in template.system
    assert "independent" in template.system
    assert "in this order: `faithfulness`, `completeness`" in template.system


def test_template_id_is_prefixed_and_the_schema_name_is_openai_safe() -> None:
    template = rubric_template(_rubric("support-answer"))
    assert template.id == "rubric:support-answer"
    assert template.output.name == "rubric_support-answer"
    assert DEFAULT_RUBRIC_TEMPLATE.id == "rubric:default"
    assert DEFAULT_RUBRIC_TEMPLATE in ALL_TEMPLATES
    assert template.output_model is RubricScoresOutput


def test_templates_are_cached_by_rubric_content() -> None:
    first = rubric_template(_rubric())
    assert rubric_template(_rubric()) is first
    assert rubric_template(DEFAULT_RUBRIC) is DEFAULT_RUBRIC_TEMPLATE
    # The pass rule is applied by veracity, not the judge: same prompt.
    strict = _rubric().model_copy(update={"default_pass_min": 5})
    assert rubric_template(strict) is first


@pytest.mark.parametrize(
    "other",
    [
        _rubric(name="other"),
        _rubric(description="Is every figure right?"),
        Rubric(
            name="support",
            dimensions=(
                RubricDimension(
                    name="accuracy", description="Is every fact right?", levels=LEVELS | {3: "ok"}
                ),
                RubricDimension(name="tone", description="Is it polite?", levels=LEVELS),
            ),
        ),
    ],
    ids=["name", "description", "level"],
)
def test_fingerprint_changes_with_the_rubric(other: Rubric) -> None:
    assert rubric_template(other).fingerprint != rubric_template(_rubric()).fingerprint
    assert rubric_template(other).fingerprint != DEFAULT_RUBRIC_TEMPLATE.fingerprint


def test_render_rubric_fills_every_field() -> None:
    prompt = rubric_template(_rubric()).render(render_rubric("Q?", "A.", ["c1", "c2"]))
    user = prompt.messages[1].content
    assert "<question>\nQ?\n</question>" in user
    assert "<answer>\nA.\n</answer>" in user
    assert '<context index="2">\nc2\n</context>' in user
    assert "## accuracy: Is every fact right?" in prompt.messages[0].content
