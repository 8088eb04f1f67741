"""RunConfig: each run setting declared once, set by the file and overridden by flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from veracity.cli.settings import settings_from
from veracity.config import RunConfig
from veracity.prompts import DEFAULT_PROMPT_BUDGET
from veracity.report.thresholds import DEFAULT_MAX_ERROR_RATE
from veracity.transport.limits import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_S


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "veracity.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_defaults_are_the_ones_every_layer_uses() -> None:
    config = RunConfig()
    assert (config.concurrency, config.timeout) == (DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_S)
    assert config.prompt_budget == DEFAULT_PROMPT_BUDGET
    assert config.max_error_rate == DEFAULT_MAX_ERROR_RATE
    assert (config.metrics, config.iterations, config.cache) == (("faithfulness",), 1, True)
    assert (config.structured_output, config.unfounded_support) == ("json_schema", "flag")


def test_flags_override_the_file_which_overrides_the_defaults(tmp_path: Path) -> None:
    path = _file(
        tmp_path,
        "concurrency: 4\ntimeout: 20\nstructured_output: json_object\n"
        "max_tokens: {claim_verification: 4096}\nembedder: none\n",
    )
    settings = settings_from(
        path,
        {"concurrency": 8, "structured_output": "text", "max_tokens": ["claim_extraction=512"]},
    )
    assert settings.concurrency == 8  # the flag
    assert settings.timeout == 20  # the file
    assert settings.iterations == 1  # the default
    assert settings.structured_output == "text"
    assert settings.max_tokens == {"claim_verification": 4096, "claim_extraction": 512}
    assert settings.embedder_spec is None
    assert settings_from(path, {"structured_output": None}).structured_output == "json_object"


def test_the_judge_is_made_from_the_settings(tmp_path: Path) -> None:
    path = _file(
        tmp_path, "timeout: 7\nstructured_output: json_object\nunfounded_support: downgrade\n"
    )
    settings = settings_from(
        path,
        {"judge": "openai/gpt-4o-mini", "base_url": "http://127.0.0.1:9/v1", "prompt_budget": 900},
    )
    described = settings.make_judge().describe()
    assert (described["timeout_s"], described["structured_output"]) == (7.0, "json_object")
    assert described["unfounded_support"] == "downgrade"
    assert described["prompt_budget"] == {"tokens": 900, "truncate_contexts": False}
    assert settings.describe()["prompt_budget"] == 900


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ({"structured_output": "json_shema"}, "--structured-output.*json_schema"),
        ({"unfounded_support": "drop"}, "--unfounded-support"),
        ({"prompt_budget": 0}, "--prompt-budget: Input should be greater than or equal to 1"),
        ({"cache_max_size": "lots"}, "--cache-max-size: bad size 'lots'"),
        ({"max_tokens": ["claim_extraction"]}, "bad --max-tokens 'claim_extraction'"),
        ({"max_tokens": ["nothing=64"]}, "--max-tokens: max_tokens: no question 'nothing'"),
        ({"ray_address": "ray://x:1"}, "--ray-address is for --executor ray"),
    ],
)
def test_a_bad_flag_is_named(tmp_path: Path, flags: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        settings_from(_file(tmp_path, ""), flags)
