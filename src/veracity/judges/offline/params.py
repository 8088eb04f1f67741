"""The offline judge's fitted parameters: a small JSON file shipped in the package.

``benchmarks/offline_fit.py`` writes it from the development sets; see
``docs/offline_judge.md``.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

PARAMS_FILE = "params.json"


class ParamsError(ValueError):
    """The parameters file is missing a field or does not fit the feature list."""


@dataclass(frozen=True, slots=True)
class OfflineParams:
    """A logistic model over claim features, and the thresholds that turn it into verdicts.

    ``P(supported) = sigmoid(bias + Σ weight_i · (x_i − mean_i) / scale_i)``. A claim is
    ``contradicted`` when its best-aligned window has cosine ≥ ``t_align`` and disagrees on
    a number, a name or a negation; else ``supported`` when P ≥ ``t_support``; else
    ``not_enough_info``. A chunk is relevant when its relevance (0–1) ≥ ``t_chunk``.
    """

    version: str
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    t_support: float
    t_align: float
    t_chunk: float
    fit: Mapping[str, Any] = field(default_factory=dict)
    fingerprint: str = ""

    def __post_init__(self) -> None:
        n = len(self.features)
        if not n or any(len(v) != n for v in (self.mean, self.scale, self.weights)):
            raise ParamsError("features, mean, scale and weights must have the same length")
        if any(s <= 0 for s in self.scale):
            raise ParamsError("every scale must be positive")
        if not all(math.isfinite(v) for v in (*self.weights, self.bias, *self.mean)):
            raise ParamsError("weights, bias and means must be finite numbers")

    @classmethod
    def untrained(cls, features: Sequence[str]) -> OfflineParams:
        """Zero weights (P = 0.5 for every claim): for computing features before a fit."""
        n = len(features)
        zeros, ones = (0.0,) * n, (1.0,) * n
        return cls("untrained", tuple(features), zeros, ones, zeros, 0.0, 0.5, 1.0, 0.5)

    def logit(self, values: Sequence[float]) -> float:
        if len(values) != len(self.features):
            raise ParamsError(f"{len(values)} feature values for {len(self.features)} features")
        total = self.bias
        for x, m, s, w in zip(values, self.mean, self.scale, self.weights, strict=True):
            total += w * (x - m) / s
        return total

    def probability(self, values: Sequence[float]) -> float:
        z = self.logit(values)
        return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "features": list(self.features),
            "mean": [round(v, 6) for v in self.mean],
            "scale": [round(v, 6) for v in self.scale],
            "weights": [round(v, 6) for v in self.weights],
            "bias": round(self.bias, 6),
            "t_support": round(self.t_support, 4),
            "t_align": round(self.t_align, 4),
            "t_chunk": round(self.t_chunk, 4),
            "fit": dict(self.fit),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], fingerprint: str = "") -> OfflineParams:
        try:
            return cls(
                version=str(data["version"]),
                features=tuple(str(f) for f in data["features"]),
                mean=tuple(float(v) for v in data["mean"]),
                scale=tuple(float(v) for v in data["scale"]),
                weights=tuple(float(v) for v in data["weights"]),
                bias=float(data["bias"]),
                t_support=float(data["t_support"]),
                t_align=float(data["t_align"]),
                t_chunk=float(data["t_chunk"]),
                fit=dict(data.get("fit", {})),
                fingerprint=fingerprint,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ParamsError(f"bad offline judge parameters: {exc}") from exc


def _from_bytes(raw: bytes) -> OfflineParams:
    return OfflineParams.from_json(json.loads(raw), hashlib.sha256(raw).hexdigest()[:16])


def load_params(path: Path | None = None) -> OfflineParams:
    """The parameters shipped in the package, or those in ``path``."""
    if path is not None:
        return _from_bytes(path.read_bytes())
    return _from_bytes(
        resources.files("veracity.judges.offline").joinpath(PARAMS_FILE).read_bytes()
    )


def write_params(params: OfflineParams, path: Path) -> None:
    path.write_text(json.dumps(params.to_json(), indent=1) + "\n", encoding="utf-8")
