"""``import good_agent`` loads the agent core only; the rest loads when first used.

Each check runs in a fresh interpreter (this test process has imported much more), lists
the modules the import left in ``sys.modules`` and names every one that should not be
there. A face that loads a name on first use must still give every name of its
``__all__`` (to ``getattr``, ``from ... import *``, ``dir()``) and declare the same names
to type checkers under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

LAZY_MODULES = (
    # our own packages that load on first use
    "good_agent.server",
    "good_agent.extensions",
    "good_agent.testing",
    "good_agent.providers.openai",
    "good_agent.providers.anthropic",
    "good_agent.providers.gemini",
    "good_agent.providers.ollama",
    "good_agent.providers.registry",
    "good_agent.providers.text",
    "good_agent.http.http_transport",
    "good_agent.http.wire",
    "good_agent.http.retries",
    "good_agent.models.provider_model",
    "good_agent.models.vendors",
    # third-party libraries behind them
    "mcp",
    "dbos",
    "jsonschema",
    "jsonschema_rs",
    "fastjsonschema",
    "tenacity",
    "openai",
    "anthropic",
    "google",
    "httpx",
    "httpx2",
    "aiohttp",
    "httptools",
    "msgspec",
    "opentelemetry",
    "redis",
    "starlette",
    "uvicorn",
    "json_repair",
    "sqlite3",
)
"""Modules (and their submodules) that ``import good_agent`` must not load."""


def loaded_after(code: str) -> list[str]:
    """The modules of `LAZY_MODULES` in ``sys.modules`` after ``code`` ran in a fresh
    interpreter with this checkout first on the path."""
    probe = (
        f"{code}\n"
        "import json as _json, sys as _sys\n"
        f"_lazy = {LAZY_MODULES!r}\n"
        "print(_json.dumps(sorted(m for m in _sys.modules "
        "if any(m == p or m.startswith(p + '.') for p in _lazy))))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    found: list[str] = json.loads(result.stdout.splitlines()[-1])
    return found


def assert_none_loaded(code: str) -> None:
    """Fail, naming each one, when ``code`` loads a module of `LAZY_MODULES`."""
    loaded = loaded_after(code)
    assert loaded == [], "loaded though only needed when used:\n  " + "\n  ".join(loaded)


def test_import_good_agent_loads_the_core_only() -> None:
    assert_none_loaded("import good_agent")


def test_import_good_agent_loads_the_agent_core() -> None:
    code = "import good_agent, sys\nassert 'good_agent.core.agent' in sys.modules"
    assert_none_loaded(code)


def test_import_good_agent_leaves_anyio_streams_and_threads_to_the_first_run() -> None:
    """Where anyio loads its own parts on use (4.10 and later), the agent core asks for
    its memory streams, task groups and worker threads only when a run does."""
    code = (
        "import sys\n"
        "import anyio\n"
        "lazy = 'anyio.streams.memory' not in sys.modules\n"
        "import good_agent\n"
        "parts = ('anyio.streams.memory', 'anyio.abc', 'anyio.to_thread')\n"
        "print([p for p in parts if p in sys.modules] if lazy else 'eager')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    found = result.stdout.strip()
    if found == "eager":
        pytest.skip("this anyio loads all of its parts when imported")
    assert found == "[]"


def test_the_probe_sees_a_lazy_module_when_one_is_loaded() -> None:
    assert "good_agent.extensions._cache" in loaded_after("from good_agent import ToolCache")


def test_help_loads_no_server_vendor_extension_or_sdk_module() -> None:
    code = (
        "import contextlib, io, sys\n"
        "from good_agent.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
        "assert 'serve-agent' in out.getvalue(), out.getvalue()\n"
    )
    assert_none_loaded(code)


@pytest.mark.parametrize("command", ["demo", "mcp-serve", "serve", "serve-agent"])
def test_subcommand_help_loads_none_of_them_either(command: str) -> None:
    code = (
        "import contextlib, io\n"
        "from good_agent.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        f"    main([{command!r}, '--help'])\n"
    )
    assert_none_loaded(code)


def test_the_console_script_prints_help() -> None:
    script = shutil.which("good-agent", path=str(Path(sys.executable).parent))
    if script is None:  # pragma: no cover - the package is installed with its script
        pytest.skip("the good-agent console script is not installed")
    result = subprocess.run(
        [script, "--help"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "serve-agent" in result.stdout


def test_a_lazy_name_loads_its_own_module_only() -> None:
    loaded = loaded_after("from good_agent import ToolCache")
    assert "good_agent.extensions._cache" in loaded
    assert not [m for m in loaded if m.startswith(("opentelemetry", "good_agent.server"))]
    assert "good_agent.extensions._telemetry" not in loaded


def test_mcp_servers_specs_resolve_without_importing_the_extensions() -> None:
    from good_agent.core.specs import _RESOLVERS

    assert "mcp_servers" in _RESOLVERS


FACES = [
    "good_agent",
    "good_agent.adapters",
    "good_agent.extensions",
    "good_agent.models",
    "good_agent.providers",
    "good_agent.providers.schema",
    "good_agent.providers.strategies",
    "good_agent.providers.streaming",
    "good_agent.providers.text",
    "good_agent.server",
    "good_agent.server.ui",
    "good_agent.tools",
]


@pytest.mark.parametrize("face", FACES)
def test_every_public_name_of_a_face_resolves(face: str) -> None:
    module = importlib.import_module(face)
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert missing == []
    assert set(module.__all__) <= set(dir(module))


@pytest.mark.parametrize("face", FACES)
def test_star_import_gives_every_public_name(face: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from {face} import *", namespace)
    assert set(importlib.import_module(face).__all__) <= set(namespace)


def test_an_unknown_name_is_an_attribute_error() -> None:
    import good_agent

    with pytest.raises(AttributeError, match="no attribute 'NoSuchName'"):
        _ = good_agent.NoSuchName  # type: ignore[attr-defined]
    with pytest.raises(ImportError):
        exec("from good_agent.models import NoSuchName", {})


def type_checking_names(path: Path) -> dict[str, str]:
    """The names a face imports under ``if TYPE_CHECKING:``, with their modules."""
    names: dict[str, str] = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for inner in node.body:
                if isinstance(inner, ast.ImportFrom) and inner.module:
                    names.update({alias.name: inner.module for alias in inner.names})
    return names


@pytest.mark.parametrize("face", [f for f in FACES if hasattr(importlib.import_module(f), "_LAZY")])
def test_type_checkers_see_the_lazy_names_from_the_same_modules(face: str) -> None:
    module = importlib.import_module(face)
    assert module.__file__ is not None
    assert type_checking_names(Path(module.__file__)) == module._LAZY


@pytest.mark.parametrize("face", [f for f in FACES if hasattr(importlib.import_module(f), "_LAZY")])
def test_no_lazy_name_is_also_a_submodule(face: str) -> None:
    # A submodule of that name, once imported, would shadow the lazy name on the face.
    module = importlib.import_module(face)
    assert module.__file__ is not None
    folder = Path(module.__file__).parent
    submodules = {p.stem for p in folder.glob("*.py")} | {
        p.name for p in folder.iterdir() if (p / "__init__.py").exists()
    }
    assert set(module._LAZY) & submodules == set()


VENDOR_CODE = (
    "import sys\n"
    "def vendors_loaded():\n"
    "    names = ('openai', 'anthropic', 'gemini', 'ollama')\n"
    "    return sorted({m.split('.')[2] for m in sys.modules\n"
    "                   if m.startswith('good_agent.providers.') and m.count('.') >= 3\n"
    "                   and m.split('.')[2] in names and not m.endswith('.profile')})\n"
)


def run_code(code: str) -> str:
    """Run ``code`` in a fresh interpreter; its last line of output."""
    result = subprocess.run(
        [sys.executable, "-c", VENDOR_CODE + code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()[-1]


def test_a_model_loads_its_own_vendor_folder_only() -> None:
    code = (
        "from good_agent import Agent\n"
        "model = Agent(model='openai:gpt-4o-mini', api_key='sk-test').model\n"
        "print(type(model).__name__, vendors_loaded())\n"
    )
    assert run_code(code) == "OpenAIChatModel ['openai']"


def test_a_model_named_without_its_provider_loads_its_vendor_from_the_rules() -> None:
    code = (
        "from good_agent import Agent\n"
        "model = Agent(model='claude-sonnet-4-5', api_key='sk-test').model\n"
        "print(type(model).__name__, vendors_loaded())\n"
    )
    assert run_code(code) == "AnthropicModel ['anthropic']"


def test_every_vendor_loads_when_all_are_asked_for() -> None:
    code = (
        "from good_agent.providers.registry import codec_names\n"
        "print(codec_names(), vendors_loaded())\n"
    )
    assert run_code(code) == (
        "['anthropic_messages', 'gemini', 'ollama', 'openai_chat', 'openai_responses'] "
        "['anthropic', 'gemini', 'ollama', 'openai']"
    )


def test_a_replaced_built_in_stays_replaced_when_the_built_ins_load() -> None:
    code = (
        "import dataclasses\n"
        "from good_agent.providers import registry\n"
        "from good_agent.providers.vendor import Codec\n"
        "from good_agent.providers.openai import chat_codec\n"
        "mine = Codec.from_module('openai_chat', chat_codec)\n"
        "registry.register_codec(mine)\n"
        "own = dataclasses.replace(registry.vendor_of('ollama'), name='mine')\n"
        "registry.register_vendor(own)\n"
        "registry.codec_names()\n"
        "print(registry.get_codec('openai_chat') is mine, registry.vendor_of('ollama') is own)\n"
    )
    assert run_code(code) == "True True"


def load_benchmark() -> Any:
    path = ROOT / "benchmarks" / "import_time.py"
    spec = importlib.util.spec_from_file_location("import_time_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_times_each_import_in_a_fresh_interpreter() -> None:
    bench = load_benchmark()
    ours = bench.Subject("`import good_agent`", "good_agent", sys.executable, str(ROOT))
    floor = bench.Subject(
        "`from pydantic import BaseModel`",
        "pydantic",
        sys.executable,
        statement="from pydantic import BaseModel",
    )
    bench.measure([ours, floor], rounds=2)
    assert len(ours.seconds) == len(floor.seconds) == 2
    assert ours.own > 10 and floor.own > 0 and ours.modules > ours.own
    lines = bench.table([ours, floor], 2)
    assert lines[2].startswith("| `import good_agent` | ")
    assert any("no verdict" in line for line in lines)


def test_the_benchmark_gives_a_verdict_against_the_target() -> None:
    bench = load_benchmark()
    subjects = [
        bench.Subject("`import good_agent`", "good_agent", "python", seconds=[0.05] * 3),
        bench.Subject("`import pydantic_ai`", "pydantic_ai", "python", seconds=[0.5] * 3),
    ]
    assert "0.10x its time; the target is at most 0.15x: **met**" in "\n".join(
        bench.table(subjects, 3)
    )
    subjects[0].seconds = [0.1] * 3
    assert "**NOT met**" in "\n".join(bench.table(subjects, 3))


def test_the_benchmark_places_the_target_against_the_floor_of_one_model() -> None:
    bench = load_benchmark()
    ours = bench.Subject("`import good_agent`", "good_agent", "python", seconds=[0.13] * 3)
    peer = bench.Subject("`import pydantic_ai`", "pydantic_ai", "python", seconds=[0.5] * 3)
    floor = bench.Subject(bench.MODEL_FLOOR, "pydantic", "python", seconds=[0.1] * 3)
    text = "\n".join(bench.table([ours, peer, floor], 3))
    assert "the floor is 0.20x pydantic_ai's time, above the 0.15x target" in text
    assert "`import good_agent` adds 30 ms above it" in text
    floor.seconds = [0.05] * 3
    assert "0.10x pydantic_ai's time, below the 0.15x target" in "\n".join(
        bench.table([ours, peer, floor], 3)
    )


def test_one_model_defined_loads_more_of_pydantic_than_importing_it() -> None:
    """The second floor is a floor: defining a model loads modules the import does not."""
    bench = load_benchmark()
    base = bench.Subject(
        "base", "pydantic", sys.executable, statement="from pydantic import BaseModel"
    )
    model = bench.Subject(bench.MODEL_FLOOR, "pydantic", sys.executable, statement=bench.ONE_MODEL)
    assert model.run()["modules"] > base.run()["modules"]


def test_the_benchmark_rewrites_only_its_part_of_the_page(tmp_path: Path) -> None:
    bench = load_benchmark()
    page = tmp_path / "performance.md"
    page.write_text(f"# Page\n\nbefore\n\n{bench.START}\nold\n{bench.END}\n\nafter\n")
    bench.DOCS_PAGE = page
    bench.write_docs(["| new |"], "note")
    assert page.read_text() == (
        f"# Page\n\nbefore\n\n{bench.START}\nnote\n\n| new |\n{bench.END}\n\nafter\n"
    )
