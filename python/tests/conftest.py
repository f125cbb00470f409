"""Shared by the tests of the package: the `yahtzee` binary they compare with, and the folder of
tables (`$YAHTZEE_TABLE_DIR`, set by the Rust test `python::` that runs them; a temporary folder
otherwise, so that a run by hand never writes to the user's cache)."""

import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

if not os.environ.get("YAHTZEE_TABLE_DIR"):
    os.environ["YAHTZEE_TABLE_DIR"] = tempfile.mkdtemp(prefix="yahtzee-tables-")


def binary() -> Path:
    """The `yahtzee` binary: `$YAHTZEE_BIN`, else the release build of this repository."""
    given = os.environ.get("YAHTZEE_BIN")
    path = Path(given) if given else ROOT / "target" / "release" / "yahtzee"
    if not path.is_file():
        message = f"no yahtzee binary at {path}: run `cargo build --release` or set YAHTZEE_BIN"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


class Cli:
    """Runs the binary with the tables of `$YAHTZEE_TABLE_DIR`."""

    def __init__(self, path: Path):
        self.path = path

    def run(self, *args: str, input: str = "", check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [str(self.path), *args], input=input, capture_output=True, text=True
        )
        if check and done.returncode != 0:
            raise AssertionError(f"yahtzee {' '.join(args)} failed: {done.stderr}")
        return done

    def json(self, *args: str) -> dict:
        return json.loads(self.run(*args).stdout)

    def error(self, *args: str, input: str = "") -> str:
        """The one-line error of a refused command, without its `error: `."""
        done = self.run(*args, input=input, check=False)
        assert done.returncode == 2, done
        assert done.stdout == ""
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, done.stderr
        assert lines[0].startswith("error: ")
        return lines[0][len("error: "):]


@pytest.fixture(scope="session")
def cli() -> Cli:
    return Cli(binary())
