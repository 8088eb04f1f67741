"""Checking a name the user typed against a setting's choices."""

from __future__ import annotations

import pytest

from veracity._suggest import one_of
from veracity.chat.modes import STRUCTURED_OUTPUT_MODES


def test_one_of_gives_the_choice_or_names_the_setting_and_the_choices() -> None:
    assert one_of("text", STRUCTURED_OUTPUT_MODES, "--structured-output") == "text"
    with pytest.raises(ValueError) as caught:
        one_of("JSON", STRUCTURED_OUTPUT_MODES, "--structured-output")
    assert str(caught.value) == (
        "--structured-output must be one of json_schema, json_object_schema, json_object, text, "
        "not 'JSON'"
    )
