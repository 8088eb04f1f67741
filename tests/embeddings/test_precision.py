"""The default model's precision: bfloat16 products where the CPU has them natively
(faster, vectors within about 2e-3 of float32's), float32 elsewhere or when asked, and
always recorded with the run."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from tests.embeddings.test_minilm import TEXTS
from veracity.embeddings import LocalEmbedder, ModelSpecError, default_minilm_dir, minilm
from veracity.embeddings.minilm import PRECISION_ENV, MiniLM, resolve_precision
from veracity.judges.offline import OfflineJudge


def test_bfloat16_vectors_stay_close_to_float32() -> None:
    exact = MiniLM(default_minilm_dir(), precision="float32")
    fast = MiniLM(default_minilm_dir(), precision="bfloat16")
    a, b = exact.encode(TEXTS), fast.encode(TEXTS)
    assert not np.array_equal(a, b)  # it did run in bfloat16
    np.testing.assert_allclose(b, a, rtol=0, atol=4e-3)
    assert float((a * b).sum(axis=1).min()) > 0.9998
    np.testing.assert_allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-6)
    # Cosines between texts, what every score is made of, move by as little.
    pairs = np.random.default_rng(0).integers(0, len(TEXTS), (200, 2))
    cos_a = (a[pairs[:, 0]] * a[pairs[:, 1]]).sum(axis=1)
    cos_b = (b[pairs[:, 0]] * b[pairs[:, 1]]).sum(axis=1)
    assert float(np.abs(cos_a - cos_b).max()) < 4e-3
    # Batching moves a bfloat16 vector a little (float32's last bits, which differ with
    # the padded length, can round to another bfloat16): far less than the precision.
    one_at_a_time = MiniLM(
        default_minilm_dir(), tokens_per_batch=1, threads=1, precision="bfloat16"
    )
    np.testing.assert_allclose(one_at_a_time.encode(TEXTS), b, rtol=0, atol=1e-3)
    for model in (exact, fast, one_at_a_time):
        model.close()


@pytest.mark.parametrize(("native", "expected"), [(True, "bfloat16"), (False, "float32")])
def test_auto_follows_the_cpu_unless_the_environment_says(
    monkeypatch: pytest.MonkeyPatch, native: bool, expected: str
) -> None:
    monkeypatch.delenv(PRECISION_ENV, raising=False)
    monkeypatch.setattr(minilm, "native_bfloat16", lambda: native)
    assert resolve_precision("auto") == expected
    assert resolve_precision("auto", device="cuda") == "float32"
    assert resolve_precision("float32") == "float32"
    assert resolve_precision("bfloat16") == "bfloat16"  # asked for: given, if slow
    monkeypatch.setenv(PRECISION_ENV, " Float32 ")
    assert resolve_precision("auto") == "float32"
    assert resolve_precision("bfloat16") == "bfloat16"  # a choice in code wins
    monkeypatch.setenv(PRECISION_ENV, "fp16")
    with pytest.raises(ModelSpecError, match=r"VERACITY_EMBEDDING_PRECISION must be one of"):
        resolve_precision("auto")


def test_the_embedder_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="precision must be one of"):
        LocalEmbedder(precision="half")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="for the default model"):
        LocalEmbedder(tmp_path, precision="bfloat16")


def test_the_precision_is_described_and_survives_pickling(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(minilm, "native_bfloat16", lambda: True)
    monkeypatch.delenv(PRECISION_ENV, raising=False)
    assert LocalEmbedder(in_process=True).describe()["precision"] == "bfloat16"
    chosen = LocalEmbedder(precision="float32")
    assert chosen.describe()["precision"] == "float32"
    copy = pickle.loads(pickle.dumps(chosen))  # how a Ray worker gets it
    assert copy.precision == "float32"
    # The offline judge records the embedder it will make, before making any vector.
    # The model's own process resolves "auto" on the real CPU (the patch is this one's).
    monkeypatch.undo()
    monkeypatch.delenv(PRECISION_ENV, raising=False)
    native = "bfloat16" if minilm.native_bfloat16() else "float32"
    assert OfflineJudge().describe()["embedder"]["precision"] == native
