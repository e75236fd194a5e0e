"""Integration fixtures: the real local model, assembled and served once per session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from runtime import local_model


@pytest.fixture(scope="session")
def gguf() -> str:
    return str(local_model.assemble(log=lambda *_: None))


@pytest.fixture(scope="session")
def server(gguf: str) -> Iterator[local_model.Server]:
    served = local_model.ensure_server()
    yield served
    local_model.stop_owned()
    assert not served.alive()

