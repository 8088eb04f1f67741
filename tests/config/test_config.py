"""load_config: YAML, pyproject [tool.veracity], discovery, and errors with file + key path."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from veracity.config import ConfigError, RunConfig, load_config
from veracity.prompts import DEFAULT_RUBRIC
from veracity.types import Rubric

SUPPORT_YAML = """\
rubrics:
  support_answer:
    default_pass_min: 4
    pass_min: {accuracy: 5}
    dimensions:
      - name: accuracy
        description: Is every fact right?
        levels: {5: "all right", 4: "one slip", 3: "some wrong", 2: "mostly wrong", 1: "all wrong"}
      - name: tone
        description: Is it polite?
        levels: {1: "rude", 2: "curt", 3: "neutral", 4: "kind", 5: "warm"}
"""

SUPPORT_TOML = """\
[tool.black]
line-length = 100

[tool.veracity.rubrics.support_answer]
pass_min = {accuracy = 5}

[[tool.veracity.rubrics.support_answer.dimensions]]
name = "accuracy"
description = "Is every fact right?"
levels = {5 = "all right", 4 = "one slip", 3 = "some wrong", 2 = "mostly wrong", 1 = "all wrong"}

[[tool.veracity.rubrics.support_answer.dimensions]]
name = "tone"
description = "Is it polite?"
levels = {1 = "rude", 2 = "curt", 3 = "neutral", 4 = "kind", 5 = "warm"}
"""


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _check_support(config: RunConfig) -> None:
    rubric = config.rubric("support_answer")
    assert isinstance(rubric, Rubric)
    assert rubric.name == "support_answer"
    assert [d.name for d in rubric.dimensions] == ["accuracy", "tone"]
    assert rubric.dimensions[0].levels[4] == "one slip"
    assert rubric.dimensions[1].levels[5] == "warm"
    assert rubric.minimum("accuracy") == 5
    assert rubric.minimum("tone") == 4


def test_yaml_file_by_path(tmp_path: Path) -> None:
    _check_support(load_config(_write(tmp_path, "veracity.yaml", SUPPORT_YAML)))


def test_pyproject_tool_veracity_by_path(tmp_path: Path) -> None:
    _check_support(load_config(str(_write(tmp_path, "pyproject.toml", SUPPORT_TOML))))


def test_a_plain_toml_file_is_the_whole_table(tmp_path: Path) -> None:
    text = SUPPORT_TOML.replace("tool.veracity.", "").replace(
        "[tool.black]\nline-length = 100\n", ""
    )
    _check_support(load_config(_write(tmp_path, "veracity.toml", text)))


@pytest.mark.parametrize("name", ["veracity.yaml", "veracity.yml"])
def test_discovers_yaml_in_start(tmp_path: Path, name: str) -> None:
    _write(tmp_path, name, SUPPORT_YAML)
    _write(tmp_path, "pyproject.toml", "[tool.veracity]\nrubrics = {}\n")
    _check_support(load_config(start=tmp_path))


def test_discovers_pyproject_when_there_is_no_yaml(tmp_path: Path) -> None:
    _write(tmp_path, "pyproject.toml", SUPPORT_TOML)
    _check_support(load_config(start=tmp_path))


def test_discovery_defaults_to_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path, "veracity.yml", SUPPORT_YAML)
    monkeypatch.chdir(tmp_path)
    _check_support(load_config())


@pytest.mark.parametrize(
    "files",
    [
        {},
        {"pyproject.toml": "[project]\nname = 'x'\n"},
        {"veracity.yaml": ""},
        {"veracity.yaml": "# only a comment\n"},
        {"pyproject.toml": "[tool.veracity]\n"},
    ],
    ids=["nothing", "pyproject-without-table", "empty-yaml", "comment-only", "empty-table"],
)
def test_no_configuration_is_the_empty_config(tmp_path: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        _write(tmp_path, name, text)
    config = load_config(start=tmp_path)
    assert config == RunConfig()
    assert config.rubrics == {}


def test_both_yaml_spellings_are_ambiguous(tmp_path: Path) -> None:
    _write(tmp_path, "veracity.yaml", SUPPORT_YAML)
    _write(tmp_path, "veracity.yml", SUPPORT_YAML)
    with pytest.raises(ConfigError, match=r"both veracity\.yaml and veracity\.yml"):
        load_config(start=tmp_path)


def test_rubric_lookup_falls_back_to_the_default(tmp_path: Path) -> None:
    config = load_config(_write(tmp_path, "veracity.yaml", SUPPORT_YAML))
    assert config.rubric() is DEFAULT_RUBRIC
    assert config.rubric("support_answer").name == "support_answer"
    with pytest.raises(KeyError, match="default, support_answer"):
        config.rubric("missing")


def test_the_config_is_frozen_and_strict() -> None:
    config = RunConfig()
    with pytest.raises(ValueError, match="frozen"):
        config.rubrics = {}  # type: ignore[misc]
    with pytest.raises(ValueError, match="colour"):
        RunConfig.model_validate({"colour": "x"})
    with pytest.raises(ValueError, match=r"rubrics\.other"):  # a rubric as the file writes it
        RunConfig.model_validate({"rubrics": {"other": "a rubric"}})
    # or, from Python, a Rubric object: kept as it is
    assert RunConfig(rubrics={"other": DEFAULT_RUBRIC}).rubric("other") is DEFAULT_RUBRIC


# ---------------------------------------------------------------- errors

DIMENSION = """\
rubrics:
  support_answer:
    dimensions:
      - name: accuracy
        description: Is every fact right?
        levels: {5: a, 4: b, 3: c, 2: d, 1: e}
"""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            DIMENSION.replace("{5: a, 4: b, 3: c, 2: d, 1: e}", "{5: a, 4: b}"),
            "veracity.yaml: rubrics.support_answer.dimensions[0].levels: "
            "levels must describe exactly 1 to 5",
        ),
        (
            DIMENSION.replace(
                "{5: a, 4: b, 3: c, 2: d, 1: e}", "{5: a, 4: b, 3: c, 2: d, 1: e, 0: z}"
            ),
            "veracity.yaml: rubrics.support_answer.dimensions[0].levels: "
            "levels must describe exactly 1 to 5",
        ),
        (
            DIMENSION.replace("{5: a, 4: b, 3: c, 2: d, 1: e}", "[a, b, c, d, e]"),
            "veracity.yaml: rubrics.support_answer.dimensions[0].levels: "
            "Input should be a valid dictionary, not a list",
        ),
        (
            DIMENSION.replace("1: e}", "one: e}"),
            "veracity.yaml: rubrics.support_answer.dimensions[0].levels.one: bad key",
        ),
        (
            DIMENSION + "    colour: red\n",
            "veracity.yaml: rubrics.support_answer.colour: unknown key "
            "(expected one of: dimensions, default_pass_min, pass_min)",
        ),
        (
            DIMENSION + "colour: blue\n",
            "veracity.yaml: colour: unknown key (expected one of: rubrics, judge, base_url,",
        ),
        (
            DIMENSION.replace("        description: Is every fact right?\n", ""),
            "veracity.yaml: rubrics.support_answer.dimensions[0].description: missing required key",
        ),
        (
            DIMENSION.replace("description: Is every fact right?", "description: 5"),
            "veracity.yaml: rubrics.support_answer.dimensions[0].description: "
            "Input should be a valid string, not an integer",
        ),
        (
            DIMENSION.replace("name: accuracy", "name: fact accuracy"),
            "veracity.yaml: rubrics.support_answer.dimensions[0].name: must be an identifier",
        ),
        (
            DIMENSION + "    pass_min: {speed: 4}\n",
            "veracity.yaml: rubrics.support_answer.pass_min: names no dimension of this rubric: "
            "speed",
        ),
        (
            DIMENSION + "    pass_min: {accuracy: 6}\n",
            "veracity.yaml: rubrics.support_answer.pass_min.accuracy: "
            "Input should be less than or equal to 5",
        ),
        (
            DIMENSION + "    default_pass_min: '4'\n",
            "veracity.yaml: rubrics.support_answer.default_pass_min: "
            "Input should be a valid integer, not a string",
        ),
        (
            DIMENSION + "    default_pass_min: true\n",
            "veracity.yaml: rubrics.support_answer.default_pass_min: "
            "Input should be a valid integer, not a boolean",
        ),
        (
            "rubrics:\n  r:\n    dimensions: []\n",
            "veracity.yaml: rubrics.r.dimensions: List should have at least 1 item",
        ),
        (
            DIMENSION + DIMENSION.split("dimensions:\n")[1],
            "veracity.yaml: rubrics.support_answer.dimensions: dimension names must be unique",
        ),
        (
            DIMENSION.replace("support_answer:", "support answer:"),
            "veracity.yaml: rubrics.support answer: bad name",
        ),
        ("rubrics: [a, b]\n", "veracity.yaml: rubrics: Input should be a valid dictionary"),
        ("- a\n- b\n", "veracity.yaml: the configuration must be a mapping, not a list"),
        ("rubrics:\n  r: [\n  x: y\n", "veracity.yaml: invalid YAML at line 4"),
        ("rubrics:\n  r: 1\n   bad: indent\n", "veracity.yaml: invalid YAML at line 3"),
    ],
)
def test_yaml_errors_name_the_file_and_key_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    _write(tmp_path, "veracity.yaml", text)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as caught:
        load_config()
    assert str(caught.value).startswith(message), str(caught.value)
    assert caught.value.file == "veracity.yaml"


def test_error_attributes_split_file_key_and_problem(tmp_path: Path) -> None:
    path = _write(tmp_path, "veracity.yaml", DIMENSION.replace("1: e}", "}"))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    error = caught.value
    assert error.file == str(path)
    assert error.key_path == "rubrics.support_answer.dimensions[0].levels"
    assert error.problem == "levels must describe exactly 1 to 5"
    assert isinstance(error, ValueError)


def test_discovered_files_are_named_with_their_folder(tmp_path: Path) -> None:
    _write(tmp_path, "veracity.yaml", "- a\n")
    with pytest.raises(ConfigError, match="the configuration must be a mapping") as caught:
        load_config(start=tmp_path)
    assert caught.value.file == str(tmp_path / "veracity.yaml")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            SUPPORT_TOML + "[tool.veracity.rubrics.support_answer.extra]\nx = 1\n",
            "pyproject.toml: tool.veracity.rubrics.support_answer.extra: unknown key",
        ),
        (
            SUPPORT_TOML.replace('5 = "all right", ', ""),
            "pyproject.toml: tool.veracity.rubrics.support_answer.dimensions[0].levels: "
            "levels must describe exactly 1 to 5",
        ),
        ("[tool.veracity]\ncolour = 'x'\n", "pyproject.toml: tool.veracity.colour: unknown key"),
        ("[tool.veracity\n", "pyproject.toml: invalid TOML: "),
        ("tool = 3\n", "pyproject.toml: tool: must be a table, not an integer"),
    ],
)
def test_pyproject_errors_name_the_file_and_tool_key_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    _write(tmp_path, "pyproject.toml", text)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as caught:
        load_config()
    assert str(caught.value).startswith(message), str(caught.value)


def test_a_toml_error_gives_the_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "settings.toml", "[rubrics]\nx = = 1\n")
    with pytest.raises(ConfigError, match=r"settings\.toml: invalid TOML: .*line 2"):
        load_config(path)


def test_unsupported_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"config\.json: unsupported file type"):
        load_config(_write(tmp_path, "config.json", "{}"))
    with pytest.raises(ConfigError, match=r"absent\.yaml: cannot read the file"):
        load_config(tmp_path / "absent.yaml")


def test_run_settings_and_prices_load(tmp_path: Path) -> None:
    path = tmp_path / "veracity.yaml"
    path.write_text(
        "judge: openai/gpt-4o-mini\nmetrics: [faithfulness, context_recall]\n"
        "thresholds: {faithfulness: 0.8}\nweights: {faithfulness: 1, answer_relevance: 1}\n"
        "concurrency: 8\nrpm: 300\niterations: 2\ncache: false\n"
        "prices: {my-model: {input_per_million: 1.5, output_per_million: 2}}\n"
    )
    config = load_config(path)
    assert config.judge == "openai/gpt-4o-mini"
    assert config.metrics == ("faithfulness", "context_recall")
    assert config.thresholds == {"faithfulness": 0.8}
    assert (config.concurrency, config.rpm, config.iterations, config.cache) == (8, 300, 2, False)
    assert config.price_table["my-model"].input_per_million == 1.5


def test_a_threshold_outside_0_1_names_its_key(tmp_path: Path) -> None:
    path = tmp_path / "veracity.yaml"
    path.write_text("thresholds: {faithfulness: 80}\n")
    with pytest.raises(ConfigError, match=r"thresholds\.faithfulness"):
        load_config(path)


def test_reply_bounds_by_question(tmp_path: Path) -> None:
    path = _write(tmp_path, "veracity.yaml", "max_tokens: {claim_verification: 4096}\n")
    assert load_config(path).max_tokens == {"claim_verification": 4096}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("max_tokens: {claim_verifcation: 4096}\n", "no question 'claim_verifcation'"),
        ("max_tokens: {claim_verification: 3}\n", "expected 16–32768 tokens, not 3"),
        ("max_tokens: {claim_verification: lots}\n", "Input should be a valid integer"),
    ],
)
def test_bad_reply_bounds_name_the_key(tmp_path: Path, text: str, problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(_write(tmp_path, "veracity.yaml", text))
    assert caught.value.key_path.startswith("max_tokens")
    assert problem in caught.value.problem


def test_max_error_rate_is_a_share(tmp_path: Path) -> None:
    assert load_config(_write(tmp_path, "veracity.yaml", "max_error_rate: 0\n")).max_error_rate == 0
    for bad in ("2", "-0.1", ".nan"):
        path = _write(tmp_path, "veracity.yaml", f"max_error_rate: {bad}\n")
        with pytest.raises(ConfigError, match=r"veracity\.yaml: max_error_rate: "):
            load_config(path)


def test_metrics_naming_none_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"veracity\.yaml: metrics: "):
        load_config(_write(tmp_path, "veracity.yaml", "metrics: []\n"))


def test_abstention_phrases_replace_the_defaults_of_both_metrics(tmp_path: Path) -> None:
    from veracity.metrics import AnswerClassification, Faithfulness, resolve_metrics

    text = 'abstention_phrases: ["keine ahnung", "{weiss|kenne} ich nicht"]\n'
    config = load_config(_write(tmp_path, "veracity.yaml", text))
    assert config.abstention_phrases == ("keine ahnung", "{weiss|kenne} ich nicht")
    names = ["faithfulness", "answer_classification", "context_recall"]
    metrics = resolve_metrics(names, abstention_phrases=config.abstention_phrases)
    assert isinstance(metrics[0], Faithfulness)
    assert isinstance(metrics[1], AnswerClassification)
    assert metrics[0].abstention_phrases == metrics[1].abstention_phrases
    assert metrics[0].abstention_phrases == config.abstention_phrases
    for bad in ("[]", '[""]', "no"):
        path = _write(tmp_path, "veracity.yaml", f"abstention_phrases: {bad}\n")
        with pytest.raises(ConfigError, match=r"veracity\.yaml: abstention_phrases"):
            load_config(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("structured_output: json_shema\n", "structured_output: Input should be 'json_schema'"),
        ("timeout: 0\n", "timeout: Input should be greater than 0"),
        ("timeout: .inf\n", "timeout: Input should be a finite number"),
        ("concurrency: 2.5\n", "concurrency: Input should be a valid integer"),
        ("concurrency: true\n", "concurrency: Input should be a valid integer"),
        ("embedder: [local]\n", "embedder: Input should be a valid string"),
    ],
)
def test_run_settings_in_the_file_name_their_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=rf"veracity\.yaml: {message}"):
        load_config(_write(tmp_path, "veracity.yaml", text))
