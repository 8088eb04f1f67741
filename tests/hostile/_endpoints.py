"""What the hostile tests share: samples, fast retries, and judges on a test endpoint."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers import paris_rows
from veracity.chat import OpenAIChat
from veracity.chat.anthropic_chat import AnthropicChat
from veracity.judges import LLMJudge
from veracity.transport import RetryPolicy

KEY = "sk-hostile0123456789abcdef"
FAST_RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.02)
SAMPLES = paris_rows(4)


def judge(provider: str, base_url: str, **options: Any) -> LLMJudge:
    """An ``openai/`` or ``anthropic/`` judge on ``base_url`` with the test key."""
    chat_class = OpenAIChat if provider == "openai" else AnthropicChat
    options.setdefault("retry", FAST_RETRY)
    return LLMJudge(chat_class("m", base_url=base_url, api_key=KEY, **options))


def results(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def written(run_dir: Path, cache: Path) -> bytes:
    """Every byte the run put on disk: its directory, the response cache and its log."""
    files = [*run_dir.iterdir(), *cache.parent.glob(cache.name + "*")]
    return b"".join(path.read_bytes() for path in files if path.is_file())
