"""Integration fixtures: the real local model, assembled and served once per session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from accord.runtime import local_model, model_server


@pytest.fixture(scope="session")
def gguf() -> str:
    return str(local_model.assemble(log=lambda *_: None))


@pytest.fixture(scope="session")
def server(gguf: str) -> Iterator[model_server.Server]:
    served = model_server.ensure_server()
    yield served
    model_server.stop_owned()
    assert not served.alive()
