"""``pip install ./clients/python`` works: the package is built (setuptools from PyPI through
pip's build isolation), installed into a fresh directory, and imports from there. Runs when
``RSBLOOM_TEST_PIP`` is set (the Rust suite sets it), as it needs the package index."""

import os
import pathlib
import subprocess
import sys

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1]


def test_pip_install_and_import(tmp_path):
    if not os.environ.get("RSBLOOM_TEST_PIP"):
        pytest.skip("RSBLOOM_TEST_PIP is not set (needs pip and the package index)")
    target = tmp_path / "site"
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    ran = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target",
         str(target), str(PACKAGE)],
        env=env, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert (target / "rsbloom" / "protocol.py").is_file()
    assert (target / "rsbloom" / "py.typed").is_file()
    # Imported from the install (redis-py from wherever this run found it).
    redis_dir = str(pathlib.Path(__import__("redis").__file__).parents[1])
    check = subprocess.run(
        [sys.executable, "-c",
         "import rsbloom, sys; print(rsbloom.__file__); "
         "print(rsbloom.protocol.shard_keys('urls', 3)); print(rsbloom.__version__)"],
        env=dict(env, PYTHONPATH=os.pathsep.join([str(target), redis_dir])),
        cwd=str(tmp_path), capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr
    lines = check.stdout.splitlines()
    assert lines[0].startswith(str(target))
    assert lines[1] == "[b'{3}urls:0', b'{1}urls:1', b'{0}urls:2']"
    assert lines[2] == "0.1.0"
