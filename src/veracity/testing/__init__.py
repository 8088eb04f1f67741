"""Test doubles that ship with veracity, for its own tests and for its users' tests.

:class:`FakeLLMServer` is an OpenAI- and Anthropic-compatible HTTP server on loopback with
scripted or rule-based replies and injectable faults.
"""

from veracity.testing._batches import BatchBehaviour
from veracity.testing._request import ChatRequest, Latency, Responder
from veracity.testing.embedders import HashingEmbedder
from veracity.testing.faults import FaultKind, Faults
from veracity.testing.mangle import MANGLINGS, Mangled, Mangling, mangle_content
from veracity.testing.payloads import EMBEDDING_DIM, hashed_embedding
from veracity.testing.responders import ScriptExhaustedError, scripted
from veracity.testing.rule_based import RuleBasedResponder
from veracity.testing.server import FakeLLMServer
from veracity.testing.stats import ServerStats
from veracity.testing.synthetic import synthetic_samples

__all__ = [
    "EMBEDDING_DIM",
    "MANGLINGS",
    "BatchBehaviour",
    "ChatRequest",
    "FakeLLMServer",
    "FaultKind",
    "Faults",
    "HashingEmbedder",
    "Latency",
    "Mangled",
    "Mangling",
    "Responder",
    "RuleBasedResponder",
    "ScriptExhaustedError",
    "ServerStats",
    "hashed_embedding",
    "mangle_content",
    "scripted",
    "synthetic_samples",
]
