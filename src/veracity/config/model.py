"""The settings of a run, declared once: each with its default, its bounds and what it
does. The config file is validated against this model (so every error names the file and
the key), the command line's flags and ``evaluate``'s keywords override its fields, and
``run.json`` records what a run used from it."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from os import PathLike
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    field_validator,
)

from veracity._units import parse_size
from veracity.agreement.scorings import NAMES as SCORINGS
from veracity.chat.modes import StructuredOutput
from veracity.config.traces import TraceMappingSpec
from veracity.judges.llm.evidence import DEFAULT_UNFOUNDED_SUPPORT, UnfoundedSupport
from veracity.prompts.budget import DEFAULT_PROMPT_BUDGET, PromptBudget
from veracity.report.thresholds import DEFAULT_MAX_ERROR_RATE
from veracity.runner.errors import Executor
from veracity.transport.limits import DEFAULT_CONCURRENCY, DEFAULT_GROUPING_S, DEFAULT_TIMEOUT_S

# The judges, prompts and types load when a run is made, not for the command line's help.
if TYPE_CHECKING:
    from veracity.agreement.calibration_file import CalibrationFile
    from veracity.chat.batching import BatchSettings
    from veracity.embeddings.base import Embedder
    from veracity.embeddings.bertscore import BertScoring
    from veracity.judges import Judge
    from veracity.metrics import Metric
    from veracity.transport.pricing import Price
    from veracity.types.judgements import Rubric

__all__ = ["RunConfig"]

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
RubricName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_-]*$")]
Fraction = Annotated[float, Field(ge=0.0, le=1.0)]
Seconds = Annotated[float, Field(gt=0, allow_inf_nan=False)]


class _Spec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class DimensionSpec(_Spec):
    name: str
    description: str
    levels: dict[int, str]

    @field_validator("name")
    @classmethod
    def _identifier(cls, name: str) -> str:
        if not _IDENTIFIER.match(name):
            raise ValueError("must be an identifier (letters, digits and underscores)")
        return name

    @field_validator("levels")
    @classmethod
    def _one_to_five(cls, levels: dict[int, str]) -> dict[int, str]:
        if set(levels) != {1, 2, 3, 4, 5}:
            raise ValueError("levels must describe exactly 1 to 5")
        return levels


class RubricSpec(_Spec):
    """A rubric as the config file writes it: its name is its key."""

    dimensions: list[DimensionSpec] = Field(min_length=1)
    default_pass_min: StrictInt = Field(default=4, ge=1, le=5)
    pass_min: dict[str, Annotated[StrictInt, Field(ge=1, le=5)]] = Field(default_factory=dict)

    @field_validator("dimensions")
    @classmethod
    def _unique(cls, dimensions: list[DimensionSpec]) -> list[DimensionSpec]:
        names = [d.name for d in dimensions]
        if len(set(names)) != len(names):
            raise ValueError("dimension names must be unique")
        return dimensions

    @field_validator("pass_min")
    @classmethod
    def _known(cls, pass_min: dict[str, int], info: ValidationInfo) -> dict[str, int]:
        dimensions = info.data.get("dimensions")
        unknown = [] if dimensions is None else sorted(set(pass_min) - {d.name for d in dimensions})
        if unknown:
            raise ValueError(f"names no dimension of this rubric: {', '.join(unknown)}")
        return pass_min

    def rubric(self, name: str) -> Rubric:
        from veracity.types.judgements import Rubric, RubricDimension

        return Rubric(
            name=name,
            dimensions=tuple(RubricDimension(**d.model_dump()) for d in self.dimensions),
            default_pass_min=self.default_pass_min,
            pass_min=self.pass_min,
        )


class PriceSpec(_Spec):
    input_per_million: float = Field(ge=0)
    output_per_million: float = Field(ge=0)


def _or_object(module: str, name: str) -> WrapValidator:
    """A setting that Python may also give as an object, ``module.name``: a value the
    setting's own type refuses passes when it is one. The class is imported only then, so
    the command line (whose values are text) loads none of them."""

    def validate(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(value)
        except ValidationError:
            if isinstance(value, getattr(importlib.import_module(module), name)):
                return value
            raise

    return WrapValidator(validate)


# Settings that take an object from Python beside what the config file writes; the type
# checker sees both, the validator checks the object's class when one is given.
if TYPE_CHECKING:
    RubricSetting = RubricSpec | Rubric
    PriceSetting = PriceSpec | Price
    EmbedderSetting = str | Embedder
    BertScorerSetting = str | BertScoring | None
    BatchSetting = bool | BatchSettings
    CalibrationSetting = str | CalibrationFile | None
else:
    RubricSetting = Annotated[RubricSpec, _or_object("veracity.types.judgements", "Rubric")]
    PriceSetting = Annotated[PriceSpec, _or_object("veracity.transport.pricing", "Price")]
    EmbedderSetting = Annotated[str, _or_object("veracity.embeddings.base", "Embedder")]
    BertScorerSetting = Annotated[
        str | None, _or_object("veracity.embeddings.bertscore", "BertScoring")
    ]
    BatchSetting = Annotated[bool, _or_object("veracity.chat.batching", "BatchSettings")]
    CalibrationSetting = Annotated[
        str | None, _or_object("veracity.agreement.calibration_file", "CalibrationFile")
    ]


class RunConfig(_Spec):
    """Every setting of a run; an empty config file is the defaults."""

    rubrics: dict[RubricName, RubricSetting] = Field(
        default_factory=dict,
        description="The rubrics rubric:NAME metrics name (in Python also Rubric objects).",
    )
    judge: str | None = Field(
        default=None,
        description="offline, openai/MODEL, anthropic/MODEL, or a decision model: "
        "systemone/MODEL or openai-decisions/MODEL (default: openai/gpt-4o-mini when "
        "OPENAI_API_KEY or OPENAI_BASE_URL is set, else offline).",
    )
    base_url: str | None = Field(
        default=None,
        description="The judge's base URL: OpenAI-compatible (or OPENAI_BASE_URL), or a "
        "System One server's API root (or SYSTEMONE_BASE_URL).",
    )
    claims_judge: str | None = Field(
        default=None,
        description="Who draws a decision judge's claims: offline (sentence segmentation, "
        "the default) or a chat judge, openai/MODEL or anthropic/MODEL.",
    )
    grouping_ms: StrictInt = Field(
        default=round(DEFAULT_GROUPING_S * 1000),
        ge=0,
        le=10_000,
        description="A decision judge holds a sample's questions about one text this many "
        "milliseconds of quiet (and while its claims are drawn) so they go in one request.",
    )
    claims_base_url: str | None = Field(
        default=None,
        description="The claims judge's base URL (default: its provider's, e.g. OPENAI_BASE_URL).",
    )
    metrics: tuple[str, ...] = Field(
        default=("faithfulness",), min_length=1, description="Comma-separated metric names."
    )
    thresholds: dict[str, Fraction] = Field(
        default_factory=dict,
        description="metric=value (or metric:calibrated=value): exit 1 when a mean is below "
        "it (repeatable).",
    )
    weights: dict[str, Annotated[float, Field(ge=0.0)]] | None = Field(
        default=None, description="ragas_score's weights"
    )
    prices: dict[str, PriceSetting] = Field(
        default_factory=dict,
        description="Prices over the built-in table, by model (in Python also Price objects).",
    )
    concurrency: StrictInt = Field(
        default=DEFAULT_CONCURRENCY, ge=1, description="Judge calls in flight."
    )
    rpm: float | None = Field(
        default=None, gt=0, allow_inf_nan=False, description="At most this many calls a minute."
    )
    iterations: StrictInt = Field(default=1, ge=1, description="Judge every sample N times.")
    timeout: Seconds = Field(
        default=DEFAULT_TIMEOUT_S, description="Seconds per call, the whole reply included."
    )
    embedder: EmbedderSetting = Field(
        default="auto",
        description="auto, local, local:DIR, openai/MODEL or none. The local model's "
        "precision: $VERACITY_EMBEDDING_PRECISION (auto, float32, bfloat16).",
    )
    bert_scorer: BertScorerSetting = Field(
        default="auto",
        description="BERTScore model: auto, local or local:DIR (a model folder).",
    )
    cache: bool | str = Field(
        default=True,
        description="Use the judge-response cache (--no-cache bypasses it; a path in the "
        "config file names the cache's file).",
    )
    cache_max_size: str | StrictInt | None = Field(
        default=None,
        description="Bound of the shared response cache: 500MB, 2GiB, none... (default "
        "$VERACITY_CACHE_MAX_SIZE, else 1GiB). The least recently used replies go first, "
        "never this run's.",
    )
    max_tokens: dict[str, StrictInt] = Field(
        default_factory=dict,
        description="question=N: bound the judge's replies to a question (repeatable).",
    )
    unfounded_support: UnfoundedSupport = Field(
        default=DEFAULT_UNFOUNDED_SUPPORT,
        description="A supported verdict whose evidence quote is not in the contexts: flag "
        "(kept, flagged) or downgrade (to not_enough_info).",
    )
    prompt_budget: StrictInt = Field(
        default=DEFAULT_PROMPT_BUDGET,
        ge=1,
        description="Tokens one judge call may send, at 4 characters a token; a sample over "
        "it is invalid_input.",
    )
    truncate_contexts: bool = Field(
        default=False,
        description="Cut the contexts of a prompt over --prompt-budget to fit (noted in details).",
    )
    max_error_rate: Fraction = Field(
        default=DEFAULT_MAX_ERROR_RATE,
        description="Exit 3 when judge errors leave more than this share of the results "
        "unscored; a run that scores nothing always does.",
    )
    abstention_phrases: tuple[Annotated[str, Field(min_length=1)], ...] | None = Field(
        default=None, min_length=1
    )
    executor: Executor = Field(
        default="local",
        description="local, or ray: score on a Ray cluster (pip install 'veracity[ray]').",
    )
    ray_address: str | None = Field(
        default=None,
        min_length=1,
        description="The Ray cluster to join (default RAY_ADDRESS, else a local instance).",
    )
    batch: BatchSetting = Field(
        default=False,
        description="Send the judge's calls through the provider's batch API (openai/, "
        "anthropic/): half price, answers within 24 h.",
    )
    batch_poll_s: Seconds = 30.0
    supported_by_conversation: Literal["supported", "unsupported"] = Field(
        default="supported",
        description="What a claim the contexts leave open but the conversation supports "
        "counts as in faithfulness' score (counted in its details either way).",
    )
    citation_index_base: StrictInt = Field(
        default=1,
        ge=0,
        le=1,
        description="What the answers' citation numbers count from: 1 ([1] is the first "
        "context) or 0.",
    )
    calibration: CalibrationSetting = Field(
        default=None,
        min_length=1,
        description="A calibration file (veracity calibrate), or a scoring veracity ships "
        f"({', '.join(SCORINGS)}): each result of a metric it calibrates gains a "
        "`calibrated` probability beside its score. Unset, the offline judge's faithfulness "
        "is calibrated by offline-combined; `none` turns every calibration off.",
    )
    force_calibration: bool = Field(
        default=False,
        description="Apply --calibration even where it was fitted on another judge (or other "
        "prompts): refused otherwise, as its probabilities would not hold.",
    )
    keep_results: bool = Field(
        default=True,
        description="Python: the result holds every result and sample (false: none, so a run "
        "of any size keeps constant memory; with out, they are in the run directory).",
    )
    extra_settings: dict[str, Any] = Field(
        default_factory=dict,
        description="More entries for run.json's settings; a `thresholds` entry (metric → "
        "value) sets where the summary's pass rates count a score as passing.",
    )
    traces: TraceMappingSpec | None = Field(
        default=None,
        description="Where custom instrumentation keeps a RAG request's parts (run --from).",
    )
    structured_output: StructuredOutput = Field(
        default="json_schema",
        description="json_schema, json_object_schema (JSON mode with the schema: llama.cpp), "
        "json_object or text; a rejected mode steps down in that order.",
    )

    @field_validator("cache", "calibration", mode="before")
    @classmethod
    def _path_text(cls, value: object) -> object:
        return str(value) if isinstance(value, PathLike) else value  # a Path from Python

    @field_validator("cache_max_size")
    @classmethod
    def _size(cls, size: str | int | None) -> str | int | None:
        if size is not None:
            parse_size(size)  # kept as written; checked here, so the error names the key
        return size

    @field_validator("max_tokens")
    @classmethod
    def _known_questions(cls, bounds: dict[str, int]) -> dict[str, int]:
        from veracity.prompts import checked_reply_bounds

        return checked_reply_bounds(bounds)

    @property
    def rubric_table(self) -> dict[str, Rubric]:
        """The config's rubrics by name."""
        return {
            name: spec.rubric(name) if isinstance(spec, RubricSpec) else spec
            for name, spec in self.rubrics.items()
        }

    @property
    def price_table(self) -> dict[str, Price]:
        """The config's prices by model."""
        from veracity.transport.pricing import Price

        return {
            name: Price(spec.input_per_million, spec.output_per_million)
            if isinstance(spec, PriceSpec)
            else spec
            for name, spec in self.prices.items()
        }

    def overridden(self, given: Mapping[str, Any], label: Callable[[str], str] = str) -> RunConfig:
        """These settings with ``given`` laid over them, validated; a :class:`ValueError`
        names a setting out of bounds as ``label`` writes it (a flag, a keyword)."""
        if not given:
            return self
        try:
            # The fields as they are, not dumped: an object a setting holds stays itself.
            return RunConfig.model_validate({**dict(self), **given})
        except ValidationError as exc:
            error = exc.errors()[0]
            message = str(error["msg"]).removeprefix("Value error, ")
            raise ValueError(f"{label(str(error['loc'][0]))}: {message}") from None

    @property
    def judge_spec(self) -> str:
        """The judge to use: :attr:`judge`, else the default for the environment."""
        from veracity.judges import default_judge_spec

        return self.judge or default_judge_spec()

    def make_judge(self) -> Judge:
        """The judge these settings describe."""
        from veracity.judges import make_judge

        return make_judge(
            self.judge_spec,
            base_url=self.base_url,
            concurrency=self.concurrency,
            rpm=self.rpm,
            timeout_s=self.timeout,
            structured_output=self.structured_output,
            max_tokens=self.max_tokens,
            prompt_budget=self.budget,
            unfounded_support=self.unfounded_support,
            claims_judge=self.claims_judge,
            claims_base_url=self.claims_base_url,
            grouping_s=self.grouping_ms / 1000,
        )

    def resolved_metrics(self, names: Sequence[str] | None = None) -> list[Metric]:
        """The metrics called ``names`` (default: :attr:`metrics`) with these settings'
        rubrics, weights, abstention phrases and citation base."""
        from veracity.metrics import resolve_metrics

        return resolve_metrics(
            self.metrics if names is None else names,
            self.rubric_table,
            ragas_weights=self.weights,
            abstention_phrases=self.abstention_phrases,
            citation_index_base=self.citation_index_base,
            conversation_support_counts=self.supported_by_conversation == "supported",
        )

    @property
    def budget(self) -> PromptBudget:
        return PromptBudget(self.prompt_budget, self.truncate_contexts)

    @property
    def embedder_spec(self) -> Embedder | str | None:
        """The embedder to make (an object given, or a spec): ``None`` for ``"none"``."""
        return None if self.embedder == "none" else self.embedder

    def rubric(self, name: str | None = None) -> Rubric:
        """The rubric called ``name``; the built-in one (``"default"``) unless overridden."""
        from veracity.prompts.rubric import DEFAULT_RUBRIC

        name = DEFAULT_RUBRIC.name if name is None else name
        if name in self.rubric_table:
            return self.rubric_table[name]
        if name == DEFAULT_RUBRIC.name:
            return DEFAULT_RUBRIC
        known = sorted({DEFAULT_RUBRIC.name, *self.rubrics})
        raise KeyError(f"no rubric {name!r}; known rubrics: {', '.join(known)}")

    def describe(self) -> dict[str, Any]:
        """The settings a run's manifest records (how calls were made, not what was asked)."""
        return {
            "executor": self.executor,
            "batch": self.batch is not False,  # True, or how a batch run waits
            "concurrency": self.concurrency,
            "rpm": self.rpm,
            "timeout_s": self.timeout,
            "cache": self.cache is not False,
            "prompt_budget": self.prompt_budget,
            "truncate_contexts": self.truncate_contexts,
        }
