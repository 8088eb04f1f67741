"""The default model on torch alone: batching that changes no vector, threads that stay
its own, and the heavy libraries left unimported."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest
import torch

from veracity.embeddings import LocalEmbedder, ModelIntegrityError, default_minilm_dir
from veracity.embeddings.minilm import MiniLM, Precision

TEXTS = [
    "A short one.",
    "The longest sentence of the lot sets the padded length of its batch. " * 8,
    *(f"Sentence {i} has{' quite a few more words' * (i % 7)} in it." for i in range(40)),
    "A short one.",  # a repeat gets the same row
]


def test_batches_and_threads_change_no_vector(embedder: LocalEmbedder) -> None:
    model = MiniLM(default_minilm_dir(), precision=embedder.precision)
    reference = model.encode(TEXTS)
    one_at_a_time = MiniLM(default_minilm_dir(), tokens_per_batch=1, threads=1)
    large_parallel = MiniLM(default_minilm_dir(), tokens_per_batch=8192, threads=3)
    reverse = list(reversed(range(len(TEXTS))))
    for variant in (
        one_at_a_time.encode(TEXTS),
        large_parallel.encode(TEXTS),
        large_parallel.encode([TEXTS[i] for i in reverse])[reverse],
    ):
        np.testing.assert_allclose(variant, reference, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(reference[0], reference[-1])
    np.testing.assert_allclose(np.linalg.norm(reference, axis=1), 1.0, atol=1e-6)
    for each in (model, one_at_a_time, large_parallel):
        each.close()


def test_its_threads_are_single_threaded_and_the_default_stays(embedder: LocalEmbedder) -> None:
    def fresh_thread_count() -> int:
        found: list[int] = []
        probe = threading.Thread(target=lambda: found.append(torch.get_num_threads()))
        probe.start()
        probe.join()
        return found[0]

    before = fresh_thread_count()
    model = MiniLM(default_minilm_dir(), threads=2)
    model.encode(TEXTS)  # starts its threads
    assert model._pool is not None
    inside = {model._pool.submit(torch.get_num_threads).result() for _ in range(4)}
    assert inside == {1}
    assert fresh_thread_count() == before  # what the user's new threads get is untouched
    model.close()


def test_the_default_embedder_imports_neither_sentence_transformers_nor_torch() -> None:
    # The model runs in a process of its own (embeddings/minilm_process.py): the caller's
    # process loads neither torch nor the weights.
    script = textwrap.dedent(
        """
        import asyncio, json, sys
        from veracity.embeddings import LocalEmbedder

        async def main():
            embedder = LocalEmbedder()
            vectors = await embedder.embed(["Is anything heavy imported?"])
            await embedder.aclose()
            return vectors.shape

        shape = asyncio.run(main())
        heavy = [m for m in ("sentence_transformers", "transformers", "torch") if m in sys.modules]
        print(json.dumps({"shape": list(shape), "heavy": heavy}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"shape": [1, 384], "heavy": []}


@pytest.mark.parametrize(
    ("file", "change"),
    [
        (
            "1_Pooling/config.json",
            {"pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True},
        ),
        ("config.json", {"hidden_act": "relu"}),
        ("config.json", {"model_type": "roberta"}),
    ],
)
def test_a_model_of_another_architecture_is_refused(
    tmp_path: Path, file: str, change: dict[str, object]
) -> None:
    source = default_minilm_dir()
    for name in ("config.json", "modules.json", "1_Pooling/config.json"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        loaded = json.loads((source / name).read_text())
        if name == file:
            loaded.update(change)
        (tmp_path / name).write_text(json.dumps(loaded))
    with pytest.raises(ModelIntegrityError, match="not hold a mean-pooled BERT"):
        MiniLM(tmp_path)


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_the_model_keeps_copies_of_its_weights_not_the_files_mapping(precision: Precision) -> None:
    """safetensors maps the whole file, and a page of it once read stayed resident while
    any tensor of the file lived (in bfloat16, 40 MiB of float32 matrices read once to be
    converted): the model's tensors are copies, none of them in a mapping of the file."""
    maps = Path("/proc/self/maps")
    if not maps.exists():
        pytest.skip("reads Linux's /proc/self/maps")
    from safetensors.torch import load_file

    weights = str((default_minilm_dir() / "model.safetensors").resolve())
    mapped = load_file(weights)  # the file mapped here too: the check looks somewhere
    model = MiniLM(default_minilm_dir(), precision=precision)
    spans = [
        (int(low, 16), int(high, 16))
        for line in maps.read_text().splitlines()
        if line.endswith(weights)
        for low, high in [line.split()[0].split("-")]
    ]
    assert spans and any(low <= t.data_ptr() < high for t in mapped.values() for low, high in spans)
    tensors = [*model._embeddings, *(t for layer in model._layers for t in layer)]
    assert not any(low <= t.data_ptr() < high for t in tensors for low, high in spans)


async def test_default_embedders_share_one_loaded_model(embedder: LocalEmbedder) -> None:
    other = LocalEmbedder(cache_size=0)
    vectors = await other.embed(["Shared weights, one copy in memory."])
    assert other._model is embedder._model
    np.testing.assert_allclose(
        vectors, await embedder.embed(["Shared weights, one copy in memory."]), atol=1e-6
    )
    await other.aclose()  # stops the shared threads; the next call starts new ones
    assert (await embedder.embed(["Still works."])).shape == (1, 384)


def test_a_forward_pass_makes_as_many_torch_calls_for_forty_texts_as_for_two(
    embedder: LocalEmbedder,
) -> None:
    # Each torch call gives up the GIL and takes it back, waiting for the Python threads
    # beside it (the offline judge's): their number must not grow with the batch.
    from torch.profiler import ProfilerActivity, profile

    model = MiniLM(default_minilm_dir(), precision=embedder.precision)
    rows = [e.ids for e in model._tokenizer.encode_batch(TEXTS)]

    def calls(batch: list[list[int]]) -> int:
        with torch.inference_mode(), profile(activities=[ProfilerActivity.CPU]) as run:
            model._forward(batch)
        return sum(1 for event in run.events() if event.cpu_parent is None)

    assert calls(rows[:2]) == calls(rows[:40])
