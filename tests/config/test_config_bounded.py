"""A configuration file is read whole, so its read is bounded: an endless device or a
huge file is a clear error naming it, never a MemoryError after gigabytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from veracity.config import ConfigError, load_config
from veracity.config.file import MAX_BYTES


def test_a_huge_config_file_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "veracity.yaml"
    path.write_bytes(b"# " + b"x" * MAX_BYTES + b"\n")
    with pytest.raises(ConfigError, match=f"{path}: larger than {MAX_BYTES:,} bytes"):
        load_config(path)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_an_endless_device_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "veracity.yaml"
    link.symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match="larger than"):
        load_config(link)


def test_a_config_file_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    path = tmp_path / "veracity.yaml"
    path.write_bytes(b"metrics: [\xff]\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(path)
