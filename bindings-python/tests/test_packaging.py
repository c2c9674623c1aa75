"""The wheel: built by maturin, its metadata (the PyPI page) and license files checked,
installed offline into a fresh venv, and used from there.

Runs in `make test` (no marker, no network): maturin builds from the local cargo cache
(CARGO_NET_OFFLINE) and pip installs the wheel alone (--no-index --no-deps).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]  # bindings-python/
REPO = PACKAGE.parent
MATURIN = Path(sys.executable).parent / "maturin"
VERSION = re.search(r'^version = "(.+)"$', (REPO / "Cargo.toml").read_text(), re.M).group(1)  # type: ignore[union-attr]

SCRIPT = textwrap.dedent(
    r"""
    import io, json, sys
    import hep

    line = '{"type":"message_delta","turn_id":1,"delta":"hi"}'
    frame = hep.parse_line(line)
    assert isinstance(frame, hep.MessageDelta) and frame.to_json() == line

    out = io.StringIO()
    w = hep.Writer(out, "1.0.0")
    w.header("wheel-test")
    w.agent_start()
    w.tool_start("c1", "read", {"path": "a.txt"})
    w.message_delta("hello")
    w.turn_done("hello", [{"id": "c1", "name": "read", "ok": True, "text": "data"}],
                {"input": 1, "output": 2, "cost": 0.5}, "stop")

    stream = hep.Stream()
    frames = stream.feed(out.getvalue().encode())
    result = stream.finish(0)
    try:
        hep.parse_line("{")
        error = None
    except hep.JsonSyntaxError as e:
        error = [e.kind, e.column, isinstance(e, ValueError)]
    print(json.dumps({
        "file": hep.__file__,
        "version": hep.__version__,
        "protocol": hep.PROTOCOL_VERSION,
        "types": [f.type for f in frames],
        "args_summary": frames[2].args_summary,
        "verdict": result.verdict,
        "answer": result.answer,
        "error": error,
    }))
    """
)


def check_metadata(metadata: str) -> None:
    """The PyPI page's data: the name, the licenses, the Python versions, the classifiers and
    the README as the description."""
    head, _, description = metadata.partition("\n\n")
    fields = [tuple(line.split(": ", 1)) for line in head.splitlines()]
    assert ("Name", "hep-protocol") in fields and ("Version", VERSION) in fields, fields
    assert ("License-Expression", "MIT OR Apache-2.0") in fields, fields
    assert [v for k, v in fields if k == "License-File"] == ["LICENSE-MIT", "LICENSE-APACHE"], fields
    assert ("Requires-Python", ">=3.9") in fields, fields
    classifiers = {v for k, v in fields if k == "Classifier"}
    expected = {f"Programming Language :: Python :: 3.{minor}" for minor in range(9, 15)}
    expected |= {"Typing :: Typed", "Operating System :: POSIX :: Linux", "Operating System :: MacOS",
                 "Operating System :: Microsoft :: Windows"}
    assert expected <= classifiers, expected - classifiers
    assert next(v for k, v in fields if k == "Description-Content-Type").startswith("text/markdown"), fields
    readme = (PACKAGE / "README.md").read_text()
    assert description.rstrip("\n") == readme.rstrip("\n"), "the description is not bindings-python/README.md"


def run(cmd: list, **kwargs: object) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    assert proc.returncode == 0, f"{cmd} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc  # type: ignore[no-any-return]


def test_wheel_installs_offline_into_a_fresh_venv_and_works(tmp_path: Path) -> None:
    assert MATURIN.exists(), f"maturin not found next to {sys.executable} (run `make python-env`)"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PIP_"))}
    env.update(CARGO_NET_OFFLINE="true", PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")

    dist = tmp_path / "dist"
    run([str(MATURIN), "build", "--quiet", "-i", sys.executable, "-o", str(dist)], cwd=PACKAGE, env=env, timeout=240)
    wheels = list(dist.glob("hep_protocol-*.whl"))
    assert len(wheels) == 1, wheels
    wheel = wheels[0]
    assert "abi3" in wheel.name

    names = set(zipfile.ZipFile(wheel).namelist())
    for module in ("__init__.py", "_stream.py", "_driver.py", "_spawn.py", "_aspawn.py", "_orphans.py", "_result.py", "py.typed"):
        assert f"hep/{module}" in names, f"the wheel lacks hep/{module}: {sorted(names)}"
    assert any(n.startswith("hep/_hep") and n.endswith(".so") for n in names), sorted(names)
    for license in ("LICENSE-MIT", "LICENSE-APACHE"):
        text = zipfile.ZipFile(wheel).read(f"hep_protocol-{VERSION}.dist-info/licenses/{license}").decode()
        assert text == (REPO / license).read_text(), f"the wheel's {license} is not the repository's"
    check_metadata(zipfile.ZipFile(wheel).read(f"hep_protocol-{VERSION}.dist-info/METADATA").decode())

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)], env=env, timeout=120)
    python = venv / "bin" / "python"
    run([str(python), "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", str(wheel)], env=env, timeout=120)

    script = tmp_path / "use_hep.py"
    script.write_text(SCRIPT)
    out = run([str(python), "-I", str(script)], cwd=tmp_path, env=env, timeout=60).stdout
    got = json.loads(out)

    assert Path(got["file"]).resolve().is_relative_to(venv.resolve()), got["file"]
    assert got["protocol"] == "v1" and got["version"]
    assert got["types"] == ["hep_header", "agent_start", "tool_start", "message_delta", "turn_done"]
    assert got["args_summary"] == 'path="a.txt"'
    assert (got["verdict"], got["answer"]) == ("ok", "hello")
    assert got["error"] == ["syntax", 2, True]
