"""A missing extra ends in one sentence naming the extra, never in a traceback.

Each case runs in a fresh interpreter whose import system pretends the extra's
modules are not installed.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HIDE = """
import sys

HIDDEN = {hidden!r}


class _Hide:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, _Hide())
"""


def run_hidden(hidden: set[str], body: str) -> subprocess.CompletedProcess[str]:
    code = HIDE.format(hidden=sorted(hidden)) + textwrap.dedent(body)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )


SERVER = {"starlette", "uvicorn"}
MCP = {"mcp", "mcp_types"}


def test_serve_without_the_server_extra(tmp_path: Path) -> None:
    config = tmp_path / "bridge.toml"
    config.write_text('[[models]]\nname = "m"\nprovider = "openai"\nmodel = "x"\n')
    result = run_hidden(
        SERVER,
        f"from good_agent.cli import main\nsys.exit(main(['serve', '--config', {str(config)!r}]))",
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "needs the 'server' extra" in result.stderr
    assert "pip install '.[server]'" in result.stderr


def test_mcp_serve_without_the_mcp_extra() -> None:
    result = run_hidden(
        MCP, "from good_agent.cli import main\nsys.exit(main(['mcp-serve', 'os:getcwd']))"
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "needs the 'mcp' extra" in result.stderr
    assert "pip install '.[mcp]'" in result.stderr


@pytest.mark.parametrize(
    "body",
    [
        "from good_agent import MCPTools",
        "import good_agent\ngood_agent.MCPTools",
        "from good_agent import Agent\nAgent(mcp_servers=['python -m server'])",
    ],
    ids=["import", "attribute", "mcp_servers"],
)
def test_mcp_in_code_without_the_mcp_extra(body: str) -> None:
    guarded = f"""
from good_agent._extras import MissingExtraError
try:
{textwrap.indent(body, "    ")}
except ImportError as exc:
    assert isinstance(exc, MissingExtraError), type(exc)
    print(exc)
    sys.exit(3)
"""
    result = run_hidden(MCP, guarded)
    assert result.returncode == 3, result.stderr
    assert "needs the 'mcp' extra" in result.stdout
    assert "pip install '.[mcp]'" in result.stdout


def test_the_core_imports_without_any_extra() -> None:
    hidden = SERVER | MCP | {"redis", "anthropic", "google", "opentelemetry", "json_repair"}
    result = run_hidden(
        hidden,
        """
import anyio
from good_agent import Agent, tool
from good_agent.testing import ScriptedModel

@tool
def add(a: int, b: int) -> int:
    '''Add.'''
    return a + b

async def main():
    model = ScriptedModel([ScriptedModel.tool_call("add", {"a": 1, "b": 2}), "3"])
    async with Agent(model=model, tools=[add]) as agent:
        print((await agent.call("1+2?")).content)

anyio.run(main)
""",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "3"


@pytest.mark.parametrize(
    "body",
    [
        "from good_agent.extensions import RedisStore\nRedisStore(url='redis://127.0.0.1:1/0')",
        "from good_agent.extensions import RedisBuckets\nRedisBuckets(url='redis://127.0.0.1:1/0')",
        "from good_agent import RedisStore\nRedisStore()",
    ],
    ids=["RedisStore", "RedisBuckets", "default url"],
)
def test_redis_backends_without_the_redis_extra(body: str) -> None:
    guarded = f"""
from good_agent._extras import MissingExtraError
try:
{textwrap.indent(body, "    ")}
except ImportError as exc:
    assert isinstance(exc, MissingExtraError), type(exc)
    print(exc)
    sys.exit(3)
"""
    result = run_hidden({"redis"}, guarded)
    assert result.returncode == 3, result.stderr
    assert "needs the 'redis' extra" in result.stdout
    assert "pip install '.[redis]'" in result.stdout
    assert "redis is not installed" in result.stdout
