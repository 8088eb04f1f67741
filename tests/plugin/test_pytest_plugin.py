"""The pytest plugin as its users meet it: test files run by pytest's own ``pytester``."""

from __future__ import annotations

from importlib.metadata import entry_points

import pytest

from veracity.testing import FakeLLMServer

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _quiet_ini(pytester: pytest.Pytester) -> None:
    # Without the plugins the project's own ini turns off as well: Phoenix's client
    # imports the whole Phoenix server (about 15 s of CPU a run) and langsmith's takes a
    # second; neither has a part in what veracity's plugin does.
    pytester.makeini(
        "[pytest]\nasyncio_default_fixture_loop_scope = function\n"
        "addopts = -p no:phoenix -p no:langsmith_plugin\n"
    )


# Until the entry point is installed the plugin is loaded by name; once it is, loading it
# again under another name would be an error.
INSTALLED = any(ep.name == "veracity" for ep in entry_points(group="pytest11"))
PLUGIN = () if INSTALLED else ("-p", "veracity.pytest_plugin")

# A conftest as a user writes it: the session's judge replaced by a scripted one that
# answers veracity's prompts with the rule-based fake judge (word overlap, negations).
CONFTEST = """
import pytest

from veracity import LLMJudge, ScriptedChat
from veracity.testing import ChatRequest, RuleBasedResponder

RULES = RuleBasedResponder()


def reply(messages, output):
    request = ChatRequest(
        "scripted", tuple((m.role, m.content) for m in messages), None, "openai", {}
    )
    return RULES(request)


@pytest.fixture
def veracity_judge():
    return LLMJudge(ScriptedChat(responder=reply))
"""

CONTEXT = "The Eiffel Tower is a wrought-iron tower in Paris. It was completed in 1889."
GOOD = {"id": "good", "question": "Where is the Eiffel Tower?", "contexts": [CONTEXT],
        "answer": "The Eiffel Tower is in Paris. It was completed in 1889.",
        "reference": "The Eiffel Tower is in Paris."}  # fmt: skip
BAD = {"id": "bad", "question": "Where is the Eiffel Tower?", "contexts": [CONTEXT],
       "answer": "The Eiffel Tower is in Paris. It was not completed in 1889.",
       "reference": "The Eiffel Tower is in Paris. It is painted gold."}  # fmt: skip

TESTS = f"""
import pytest

from veracity.pytest_plugin import RagAssertionError, assert_scores

GOOD = {GOOD!r}
BAD = {BAD!r}


def test_grounded_answer_is_faithful(rag_eval):
    rag_eval.assert_faithful(GOOD, min_score=1.0)


def test_contradicted_claim_fails(rag_eval):
    rag_eval.assert_faithful(BAD, min_score=0.8)


def test_recall_mean(rag_eval):
    rag_eval.assert_metric([GOOD, BAD], "context_recall", min_mean=0.9)


def test_evaluate_returns_the_result(rag_eval):
    result = rag_eval.evaluate([GOOD, BAD], ["faithfulness", "context_recall"])
    assert len(result.results) == 4
    scores = {{(r.sample_id, r.metric): r.score for r in result.results}}
    assert scores["good", "faithfulness"] == 1.0 and scores["bad", "faithfulness"] == 0.5
    assert_scores(result, {{"faithfulness": 0.5, "context_recall": 0.5}})
    with pytest.raises(RagAssertionError, match="faithfulness"):
        assert_scores(result, min_mean={{"faithfulness": 0.9}})
"""


def test_fixtures_evaluate_and_fail_with_the_claims(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_rag=TESTS)
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(passed=2, failed=2)
    output = result.stdout.str()
    # The failing claim, its verdict, the judge's reason and the evidence.
    result.stdout.fnmatch_lines(
        [
            "*test_contradicted_claim_fails*",
            "*faithfulness: 1 of 1 result(s) below 0.8*",
            "*sample 'bad': faithfulness 0.500 < 0.8*1 contradicted*",
            "*contradicted claim: 'It was not completed in 1889.'*",
            "*reason: *the negation differs*",
            "*evidence: 'It was completed in 1889.'*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*test_recall_mean*",
            "*context_recall: mean 0.750 < 0.9 over 2 scored of 2 result(s)*",
            "*not_enough_info reference statement: 'It is painted gold.'*",
        ]
    )
    assert "supported claim" not in output  # only what failed is listed


def test_a_judge_error_is_a_failure_with_its_reason(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        """
import pytest
from veracity import LLMJudge, ScriptedChat

@pytest.fixture
def veracity_judge():
    return LLMJudge(ScriptedChat(responder=lambda messages, output: "I cannot answer that."))
"""
    )
    pytester.makepyfile(
        test_err=f"""
def test_faithful(rag_eval):
    rag_eval.assert_faithful({GOOD!r}, min_score=0.0)
"""
    )
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*faithfulness has no score (judge_error)*"])


def test_without_a_judge_the_offline_judge_gives_verdicts(pytester: pytest.Pytester) -> None:
    """Issue 16: with plain ``pytest`` the quality tests were skipped (``sss``, exit 0).
    Now the offline judge judges them, and the header says so; a misattributed citation
    fails naming its claim."""
    pytest.importorskip("pysbd")
    from veracity.embeddings import local_embedder_available

    if not local_embedder_available():
        pytest.skip("the offline judge needs veracity[local]")
    context = "Insulin is a hormone produced by beta cells in the pancreas."
    pytester.makepyfile(
        test_quality=f"""
from veracity.pytest_plugin import assert_faithful

CONTEXT = {context!r}

def test_grounded(rag_eval):
    rag_eval.assert_faithful({{"question": "Which organ makes insulin?",
                              "answer": "Insulin is produced by beta cells in the pancreas.",
                              "contexts": [CONTEXT]}})

def test_hallucinated(rag_eval):
    rag_eval.assert_faithful({{"question": "Which organ makes insulin?",
                              "answer": "Insulin is produced by the liver.",
                              "contexts": [CONTEXT]}})

def test_module_level_helper_means_the_same(rag_eval):
    result = rag_eval.evaluate({{"question": "q", "answer": "Insulin is produced by the liver.",
                                "contexts": [CONTEXT]}})
    assert_faithful(result)
""",
        test_cited="""
def test_cited(rag_eval):
    rag_eval.assert_metric(
        {"question": "Where is the Eiffel Tower and when was it finished?",
         "contexts": ["The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars.",
                      "Construction of the tower was completed in 1889 for the World's Fair."],
         "answer": "The Eiffel Tower is on the Champ de Mars [1]. It was completed in 1889 [1]."},
        "citation_precision", min_score=0.9)
""",
    )
    # A process of its own: pytester's in-process run restores sys.modules, and torch
    # imported twice in one interpreter crashes the tests that run after it.
    result = pytester.runpytest_subprocess(*PLUGIN)
    outcomes = result.parseoutcomes()
    assert (outcomes.get("passed"), outcomes.get("failed")) == (1, 3)
    result.stdout.fnmatch_lines(
        [
            "veracity: judge offline (no --veracity-judge given), thresholds none",
            "*Insulin is produced by the liver.*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*citation_precision 0.500 < 0.9*",
            "*✗ misattributed claim: 'It was completed in 1889.'",
            "*    cites ?1?, supported by ?2?",  # fnmatch: [ ] is a class
        ]
    )
    lines = result.outlines
    failed = {line.split("::")[1].split()[0] for line in lines if line.startswith("FAILED")}
    assert failed == {"test_hallucinated", "test_module_level_helper_means_the_same", "test_cited"}


def test_judge_and_threshold_from_the_command_line(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_cli=f"""
def test_judge(veracity_judge, veracity_thresholds):
    assert veracity_judge.name == "openai/fake"
    assert veracity_thresholds == {{"faithfulness": 0.9}}

def test_default_threshold(rag_eval):
    rag_eval.assert_faithful({BAD!r})

def test_passes(rag_eval):
    rag_eval.assert_faithful({GOOD!r})
"""
    )
    # In a process of its own: an in-process run drops the modules it imported (the
    # openai SDK's among them) from sys.modules when it ends, and tests run after it in
    # this process would import a second copy whose exception classes differ.
    with FakeLLMServer() as server:
        result = pytester.runpytest_subprocess(
            *PLUGIN, "--veracity-judge", "openai/fake", "--veracity-base-url",
            server.base_url, "--veracity-threshold", "faithfulness=0.9",
        )  # fmt: skip
        calls = server.stats.completions
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "veracity: judge openai/fake, thresholds faithfulness=0.9",
            "*sample 'bad': faithfulness 0.500 < 0.9*",
        ]
    )
    assert calls > 0  # the real HTTP judge was used


def test_bad_options(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x="def test_judge(veracity_judge):\n    pass\n")
    result = pytester.runpytest(*PLUGIN, "--veracity-judge", "nonsense")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*--veracity-judge nonsense: unknown judge*"])
    result = pytester.runpytest(*PLUGIN, "--veracity-threshold", "faithfulness=2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--veracity-threshold: bad threshold*"])
