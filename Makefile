# Accord — common tasks. `make setup` once, then `make demo` or `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
TODO_TASK := Build a command-line to-do list application: add tasks, mark them done, remove them, list them, and keep the list in a file so it survives between runs.

.PHONY: help setup demo run test test-all lint format docs diagram tables dev eval eval-pipeline bench bench-load clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

# On x86-64, llama.cpp is built for the features every recent CPU has (AVX2, FMA, F16C), not for the build
# machine's own: a native build on a CPU with AMX issues tile instructions that a virtual machine may refuse
# (the server dies at its first token), and a wheel pip cached on one machine would be reused on the next.
# So it is built afresh for each venv, with these flags, from the version pyproject.toml pins.
LLAMA_CMAKE_ARGS ?= $(if $(filter x86_64,$(shell uname -m)),-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON)

$(BIN)/accord: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip install -q --no-cache-dir --no-deps \
	  "$$(grep -o 'llama-cpp-python\[server\]==[0-9.]*' pyproject.toml)"
	$(BIN)/pip install -q -e ".[local,dev]"
	@touch $@

setup: $(BIN)/accord  ## install Accord, llama.cpp and the local model; check the sandbox
	@command -v bwrap >/dev/null || echo "WARNING: bubblewrap is missing: Accord refuses to run model-written code until you apt-get install bubblewrap (accord doctor)"
	@command -v cppcheck >/dev/null || echo "WARNING: cppcheck is missing: the audit Tester reads C and C++ without it, and make test fails, until you apt-get install cppcheck"
	$(BIN)/accord model setup

demo: setup  ## run the AgentMesh to-do application task on the local model, files into out/todo
	$(BIN)/accord run "$(TODO_TASK)" --out out/todo

run: setup  ## run a task: make run TASK="..."
	$(BIN)/accord run "$(TASK)" --out out/run

test: setup  ## the offline test suite (scripted models, the sandbox, a wheel installed outside the checkout)
	$(BIN)/python -m pytest -q -n 3 tests/unit

test-all: test  ## make test, then the integration tests: the local model, langgraph dev, PostgreSQL, Redis
	$(BIN)/python -m pytest -q tests/integration

CODE := accord accountability evals graphs nodes runtime state bench tests examples/repair

lint: $(BIN)/accord  ## ruff (checks and formatting) and mypy --strict
	$(BIN)/ruff check $(CODE)
	$(BIN)/ruff format --check $(CODE)
	$(BIN)/mypy -p accord -p bench
	cd examples/repair && MYPYPATH=../.. ../../$(BIN)/mypy --config-file ../../pyproject.toml accord_repair

format: $(BIN)/accord  ## format the code (ruff format) and sort its imports
	$(BIN)/ruff check --select I --fix -q $(CODE)
	$(BIN)/ruff format $(CODE)

docs: diagram tables  ## regenerate the lifecycle drawings and result tables in the README and docs/

diagram: $(BIN)/accord  ## redraw the lifecycle drawings from the compiled graphs
	$(BIN)/python -m accord.graphs.diagram

tables: $(BIN)/accord  ## regenerate the result tables from the results' summary.json files
	$(BIN)/python -m accord.evals.reports.tables

dev: setup  ## serve the graphs in LangGraph Studio (needs langgraph-cli[inmem])
	$(BIN)/langgraph dev --no-browser

clean:  ## remove runs and outputs (keeps the venv and the model cache)
	rm -rf .accord out

eval: setup  ## HumanEval on the local model: make eval CONFIG=accountable LIMIT=40 (resumable)
	$(BIN)/accord eval humaneval --config $(or $(CONFIG),accountable) $(if $(LIMIT),--limit $(LIMIT)) --out $(or $(EVAL_OUT),out/eval/humaneval)

MIXES := AAA ABC BAB BBB BCC CBA CCA CCC
eval-pipeline: setup  ## the pipeline on LogiQA, AGIEval (LIMIT 50) and HumanEval (CODE_LIMIT 20): every mix, simple and accountable, the monolithic baselines (resumable)
	for set in logiqa agieval humaneval-pipeline; do \
	  limit=$$([ $$set = humaneval-pipeline ] && echo $(or $(CODE_LIMIT),20) || echo $(or $(LIMIT),50)); \
	  for model in A B C; do $(BIN)/accord eval $$set --config single --model $$model --limit $$limit --out results/$$set || exit 1; done; \
	  for mix in $(MIXES); do for config in simple accountable; do \
	    $(BIN)/accord eval $$set --config $$config --mix $$mix --limit $$limit --out results/$$set || exit 1; \
	  done; done; \
	done

bench: $(BIN)/accord  ## Accord's overhead per transition vs bare LangGraph (add THREAD=id to compare a run); the candidate draw's tokens/s vs single-stream decode; where the default team's time goes (TASKS=20 dev tasks)
	$(BIN)/python -m bench.transitions $(if $(THREAD),--thread $(THREAD))
	$(BIN)/python -m bench.draw
	$(BIN)/python -m bench.time_split --tasks $(or $(TASKS),20)
	$(BIN)/python -m bench.page

bench-load: $(BIN)/accord  ## RUNS (50) concurrent runs against a slow, flaky scripted endpoint
	$(BIN)/python -m bench.load --runs $(or $(RUNS),50)
