"""Test doubles that ship with veracity, for its own tests and for its users' tests.

:class:`FakeLLMServer` is an OpenAI- and Anthropic-compatible HTTP server on loopback with
scripted or rule-based replies and injectable faults. :class:`FakeDecisionServer` is a
decision-model server on loopback (System One and OpenAI Decisions) answering typed
questions with probabilities from word overlap, with server limits, refusals, faults and
hostile replies.
"""

from veracity.testing._batches import BatchBehaviour
from veracity.testing._decision_backend import (
    DecisionBehaviour,
    DecisionLatency,
    DecisionResponder,
    DecisionServerStats,
)
from veracity.testing._request import ChatRequest, Latency, Responder
from veracity.testing.decision_mangle import (
    DECISION_MANGLINGS,
    DecisionExchange,
    DecisionMangleHook,
    DecisionMangling,
    mangle_decision,
)
from veracity.testing.decision_overlap import OverlapDecider
from veracity.testing.decision_server import FakeDecisionServer
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
    "DECISION_MANGLINGS",
    "EMBEDDING_DIM",
    "MANGLINGS",
    "BatchBehaviour",
    "ChatRequest",
    "DecisionBehaviour",
    "DecisionExchange",
    "DecisionLatency",
    "DecisionMangleHook",
    "DecisionMangling",
    "DecisionResponder",
    "DecisionServerStats",
    "FakeDecisionServer",
    "FakeLLMServer",
    "FaultKind",
    "Faults",
    "HashingEmbedder",
    "Latency",
    "Mangled",
    "Mangling",
    "OverlapDecider",
    "Responder",
    "RuleBasedResponder",
    "ScriptExhaustedError",
    "ServerStats",
    "hashed_embedding",
    "mangle_content",
    "mangle_decision",
    "scripted",
    "synthetic_samples",
]
