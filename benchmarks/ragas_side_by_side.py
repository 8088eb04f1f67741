"""veracity and ragas side by side: faithfulness over the same samples on the same fake server.

One fake OpenAI-compatible server (``veracity.testing.FakeLLMServer``, every call taking
``--latency`` seconds) runs in this process and answers both tools' prompts by the same
word-overlap rules: veracity's own prompts through its rule-based responder, ragas'
statement and verdict prompts (read from their ``input:`` JSON) with the same sentences as
statements and the same verdicts (``supported`` is 1, anything else 0). The samples
(``veracity.testing.synthetic_samples``) are written once as a JSONL file in ragas' column
names, which veracity reads too. Then, ``--rounds`` times, alternately:

- veracity: the whole ``veracity run DATASET --metrics faithfulness --judge openai/MODEL
  --base-url URL --concurrency N --no-cache --out DIR`` process;
- ragas: a process running ``ragas.evaluate`` with its ``Faithfulness`` metric, the LLM a
  LangChain ``ChatOpenAI`` pointed at the same server, ``RunConfig(max_workers=N)``; run
  by ``--ragas-python`` (a virtual environment with ragas, kept apart from veracity's).

Each is timed wall-clock from process start to exit; the server counts the calls, the most
in flight at once and the mean in flight while judging. Both processes' mean scores are
printed, a check that the two judged the same thing.

Run:  python benchmarks/ragas_side_by_side.py --ragas-python RAGAS_VENV/bin/python

ragas' environment: ``python -m venv RAGAS_VENV && RAGAS_VENV/bin/pip install ragas==0.4.3
'langchain-community<0.4.2'`` (ragas 0.4.3 imports ``langchain_community.chat_models
.vertexai``, which langchain-community 0.4.2 no longer has; ragas needs no torch).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# The ragas process runs this file with ragas' interpreter, where veracity is not installed:
# veracity is imported only in the parent's functions.
RAGAS_CHILD_FLAG = "--ragas-child"
MODEL = "fake-judge"
RAGAS_INPUT_MARK = "Now perform the same with the following input\ninput: "


def ragas_child(dataset: str, base_url: str, concurrency: int) -> None:
    """Run in ragas' interpreter: ragas' faithfulness over ``dataset``; prints its mean."""
    # Installed in ragas' environment only.
    from langchain_openai import ChatOpenAI  # type: ignore[import-not-found]
    from ragas import EvaluationDataset, RunConfig, evaluate  # type: ignore[import-not-found]
    from ragas.llms import LangchainLLMWrapper  # type: ignore[import-not-found]
    from ragas.metrics import Faithfulness  # type: ignore[import-not-found]

    rows = [json.loads(line) for line in Path(dataset).read_text().splitlines() if line]
    data = EvaluationDataset.from_list(
        [{k: row[k] for k in ("user_input", "response", "retrieved_contexts")} for row in rows]
    )
    llm = LangchainLLMWrapper(ChatOpenAI(model=MODEL, base_url=base_url, api_key="benchmark"))
    result = evaluate(
        data,
        metrics=[Faithfulness()],
        llm=llm,
        run_config=RunConfig(max_workers=concurrency),
        show_progress=False,
    )
    scores = [s["faithfulness"] for s in result.scores]
    scored = [s for s in scores if not math.isnan(s)]  # NaN: no statement, or a failed row
    from ragas import __version__ as ragas_version

    print(
        json.dumps(
            {"ragas": ragas_version, "scored": len(scored), "mean": statistics.fmean(scored)}
        )
    )


def ragas_responder() -> Any:
    """The fake server's responder: ragas' two faithfulness prompts, else veracity's."""
    from veracity.testing import RuleBasedResponder
    from veracity.testing._request import ChatRequest

    rules = RuleBasedResponder()

    def respond(request: ChatRequest) -> str:
        prompt = request.first_user
        start = prompt.rfind(RAGAS_INPUT_MARK)
        if start < 0:
            return rules(request)
        body = prompt[start + len(RAGAS_INPUT_MARK) :].rsplit("\nOutput:", 1)[0]
        task = json.loads(body)
        if "answer" in task:  # StatementGeneratorPrompt
            return json.dumps({"statements": rules.extract(task["answer"])})
        # NLIStatementPrompt: the contexts joined by newlines, as ragas sends them
        statements = task["statements"]
        verdicts = rules.verify(statements, task["context"].split("\n"))
        return json.dumps(
            {
                "statements": [
                    {
                        "statement": statement,
                        "reason": verdict["reason"],
                        "verdict": int(verdict["verdict"] == "supported"),
                    }
                    for statement, verdict in zip(statements, verdicts, strict=True)
                ]
            }
        )

    return respond


def write_dataset(path: Path, samples: int) -> None:
    from veracity.testing import synthetic_samples

    rows = [
        {
            "id": s.id,
            "user_input": s.question,
            "response": s.answer,
            "retrieved_contexts": list(s.contexts),
            "reference": s.reference,
        }
        for s in synthetic_samples(samples, seed=7)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def timed(name: str, command: list[str], server: Any, cwd: Path) -> dict[str, Any]:
    """Run ``command`` to its end; wall-clock, the server's calls and requests in flight."""
    from fake_server_run import _InFlight

    server.reset_stats()
    env = {**os.environ, "OPENAI_API_KEY": "benchmark", "RAGAS_DO_NOT_TRACK": "true"}
    with _InFlight(server) as in_flight:
        started = time.perf_counter()
        done = subprocess.run(
            command, check=False, cwd=cwd, env=env, capture_output=True, text=True
        )
        wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-2000:] + done.stderr[-4000:])
        raise SystemExit(f"{name} exited {done.returncode}")
    stats = server.stats
    return {
        "tool": name,
        "wall_s": round(wall, 2),
        "completions": stats.completions,
        "http_requests": stats.requests,
        "max_concurrent_requests": stats.max_concurrent,
        **in_flight.figures(started, started + wall),
        "stdout_tail": done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "",
    }


def veracity_mean(out: Path) -> float:
    summary = json.loads((out / "summary.json").read_text())
    return float(summary["metrics"]["faithfulness"]["overall"]["mean"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ragas-python", required=True, help="an interpreter with ragas")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)

    from veracity.testing import FakeLLMServer

    # The console script beside this interpreter, as a user runs it.
    veracity = str(Path(sys.executable).with_name("veracity"))
    rows: list[dict[str, Any]] = []
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer(
        ragas_responder(), latency_s=args.latency, seed=11, record_requests=False
    ) as server:  # fmt: skip
        work = Path(tmp)
        dataset = work / "samples.jsonl"
        write_dataset(dataset, args.samples)
        common = ["--concurrency", str(args.concurrency)]
        for n in range(args.rounds):
            out = work / f"run{n}"
            row = timed(
                "veracity",
                [veracity, "run", str(dataset), "--metrics", "faithfulness",
                 "--judge", f"openai/{MODEL}", "--base-url", server.base_url, *common,
                 "--no-cache", "--out", str(out)],
                server, work,
            )  # fmt: skip
            row["mean"] = round(veracity_mean(out), 4)
            rows.append(row)
            print(json.dumps(row), flush=True)
            row = timed(
                "ragas",
                [args.ragas_python, str(Path(__file__).resolve()), RAGAS_CHILD_FLAG,
                 str(dataset), server.base_url, str(args.concurrency)],
                server, work,
            )  # fmt: skip
            row["mean"] = round(json.loads(row["stdout_tail"])["mean"], 4)
            rows.append(row)
            print(json.dumps(row), flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    median = {}
    for tool in ("veracity", "ragas"):
        walls = [r["wall_s"] for r in rows if r["tool"] == tool]
        median[tool] = statistics.median(walls)
        print(f"{tool}: median wall {median[tool]:.2f} s of {walls}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    checks = {
        "both judged the same: equal mean scores": len({r["mean"] for r in rows}) == 1,
        "veracity's median wall below ragas'": median["veracity"] < median["ragas"],
    }
    for check, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {check}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == RAGAS_CHILD_FLAG:
        ragas_child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        sys.exit(0)
    sys.exit(main())
