"""Where the time goes: the server's own timings read from its log, and a run's wall time split by them."""

from __future__ import annotations

import pytest

from bench.time_split import server_timings, split_of

LOG = """llama_perf_context_print:        load time =       0.56 ms
llama_perf_context_print: prompt eval time =     871.74 ms /    83 tokens (10.50 ms per token)
llama_perf_context_print:        eval time =   11719.68 ms /   264 runs   (44.39 ms per token)
llama_perf_context_print:       total time =   14481.13 ms /   347 tokens
INFO:     127.0.0.1:50000 - "POST /v1/chat/completions HTTP/1.1" 200 OK
llama_perf_context_print: prompt eval time =     128.26 ms /    17 tokens (7.54 ms per token)
llama_perf_context_print:        eval time =    4280.32 ms /    96 runs   (44.59 ms per token)
llama_perf_context_print:       total time =    5018.87 ms /   113 tokens
"""


def test_the_server_log_gives_each_completions_prompt_and_decode_time():
    timings = server_timings(LOG)
    assert timings == pytest.approx(
        {
            "prompt_ms": 1000.0,
            "prompt_tokens": 100,
            "decode_ms": 16000.0,
            "decode_tokens": 360,
            "completion_ms": 19500.0,
            "completions": 2,
        }
    )
    assert server_timings("INFO: nothing timed here\n")["completions"] == 0


def test_a_runs_wall_time_is_split_into_the_model_the_sandbox_and_accord():
    rows = [
        {
            "latency_s": 15.0,
            "passed": True,
            "llm_calls": 1,
            "by_role": {"coder": {"llm_s": 12.0, "sandbox_s": 0.5}},
        },
        {
            "latency_s": 10.0,
            "passed": False,
            "llm_calls": 1,
            "by_role": {"coder": {"llm_s": 8.0, "sandbox_s": 0.0}, "tester": {"sandbox_s": 1.0}},
        },
    ]
    # The rows count the hidden tests' 0.4 s as sandbox time; they are the eval's, not the run's.
    figures = split_of(rows, {"m": server_timings(LOG)}, limits={"m": 24.0}, oracle=0.4)
    assert figures["parts_s"] == {
        "prompt processing": 1.0,
        "decoding": 16.0,
        "rest of the server's completions": 2.5,
        "HTTP and waiting for the server": 0.5,
        "sandbox": 1.1,
        "hidden tests (the eval's judge)": 0.4,
        "Accord itself": 3.5,
    }
    # The parts are the whole wall time, each share of it.
    assert figures["wall_s"] == 25.0 and sum(figures["parts_s"].values()) == pytest.approx(25.0)
    assert figures["shares"]["decoding"] == pytest.approx(0.64)
    m = figures["models"]["m"]
    assert m["decode_tokens_per_s"] == 22.5 and m["single_stream_tokens_per_s"] == 24.0
    assert m["prompt_tokens_per_s"] == 100.0 and (figures["tasks"], figures["solved"]) == (2, 1)


def test_a_team_of_two_models_is_split_over_both_servers_and_each_rated_against_its_own_limit():
    rows = [{"latency_s": 40.0, "passed": True, "llm_calls": 3, "by_role": {"coder": {"llm_s": 38.0}}}]
    halves = LOG.split('INFO:     127.0.0.1:50000 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n')
    servers = {"big": server_timings(halves[0]), "small": server_timings(halves[1])}
    figures = split_of(rows, servers, limits={"big": 7.0, "small": 30.0})
    assert figures["parts_s"]["decoding"] == 16.0 and figures["completions"] == 2
    assert figures["models"]["big"]["decode_tokens_per_s"] == pytest.approx(264 / 11.71968, abs=0.05)
    assert figures["models"]["small"]["single_stream_tokens_per_s"] == 30.0
    assert figures["models"]["small"]["decode_tokens"] == 96
