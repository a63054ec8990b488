"""The cluster's pieces that need no scheduler: the address guard, the cohort archive a worker unpacks
(verified against the client's digest, never written outside its directory), and what a worker's
environment is compared on. ``tests/e2e/test_cluster.py`` runs real schedulers and workers."""

import io
import os
import tarfile

import pytest

from elenchus.execution import cluster
from elenchus.errors import InputGuardError
from elenchus.execution.workspace import tree_digest


@pytest.mark.parametrize("value", ["tcp://127.0.0.1:8786", "tcp://[::1]:8786", "tcp://dask-0.internal:1",
                                   " tcp://scheduler:65535 ", "tls://scheduler:8786"])
def test_cluster_address_guard_accepts_a_scheduler_address(value):
    assert cluster.address(value) == value.strip()


@pytest.mark.parametrize("value", ["127.0.0.1:8786", "tcp://scheduler", "tcp://scheduler:0", "tcp://scheduler:65536",
                                   "http://scheduler:8786", "tcp://sched uler:8786", ""])
def test_cluster_address_guard_names_itself_and_shows_the_expected_form(value):
    with pytest.raises(InputGuardError) as raised:
        cluster.address(value)
    assert raised.value.guard == "cluster" and "tcp://127.0.0.1:8786" in raised.value.message


def _tree(root):
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("VALUE = 1\n")
    (root / "run.sh").write_text("#!/bin/sh\necho hi\n")
    os.chmod(root / "run.sh", 0o755)
    (root / "tests").mkdir()
    (root / "tests" / "test_pkg.py").write_text("def test_value():\n    assert True\n")
    os.symlink("pkg/__init__.py", root / "link.py")
    return root


def test_cluster_archive_unpacks_to_the_same_digest_and_is_the_same_bytes_each_time(tmp_path):
    template = _tree(tmp_path / "template")
    data = cluster.archive(template)
    assert cluster.archive(template) == data
    assert data[4:8] == b"\0\0\0\0"  # gzip's header time: two archives a second apart are the same bytes too
    unpacked = cluster.unpack(data, tmp_path / "worker" / "cohort", tree_digest(template))
    assert tree_digest(unpacked) == tree_digest(template)
    assert os.readlink(unpacked / "link.py") == "pkg/__init__.py"
    assert os.stat(unpacked / "run.sh").st_mode & 0o777 == 0o755


def test_cluster_archive_that_does_not_match_the_clients_digest_is_refused(tmp_path):
    template = _tree(tmp_path / "template")
    data = cluster.archive(template)
    with pytest.raises(ValueError, match="not the client's"):
        cluster.unpack(data, tmp_path / "worker" / "cohort", "0" * 64)


def test_cluster_archive_with_an_entry_outside_its_directory_writes_nothing(tmp_path):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        payload = b"escaped\n"
        info = tarfile.TarInfo("../escaped.txt")
        info.size = len(payload)
        tar.addfile(info, io.BytesIO(payload))
    with pytest.raises(ValueError, match="cannot be unpacked safely"):
        cluster.unpack(buffer.getvalue(), tmp_path / "worker" / "cohort", "0" * 64)
    assert not (tmp_path / "worker" / "escaped.txt").exists() and not (tmp_path / "worker" / "cohort").exists()


def test_cluster_archive_entry_through_a_symlink_it_made_is_refused(tmp_path):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        link = tarfile.TarInfo("./out")
        link.type, link.linkname = tarfile.SYMTYPE, str(tmp_path / "elsewhere")
        tar.addfile(link)
        payload = b"through\n"
        info = tarfile.TarInfo("./out/file.txt")
        info.size = len(payload)
        tar.addfile(info, io.BytesIO(payload))
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(ValueError, match="cannot be unpacked safely"):
        cluster.unpack(buffer.getvalue(), tmp_path / "worker" / "cohort", "0" * 64)
    assert not list((tmp_path / "elsewhere").iterdir())


def test_cluster_environment_differences_name_what_a_worker_lacks_or_adds():
    here = cluster.Environment("cpython 3.11.7", "0.2.0", ("libcst==1.5.0", "pytest==8.3.0"), "bubblewrap")
    there = cluster.Environment("cpython 3.12.1", "0.1.0", ("pytest==8.3.0", "requests==2.32.0"), "none")
    found = cluster.differences(here, there)
    assert found == ["Python 3.12.1 (cpython) where this machine has 3.11.7",
                     "Elenchus 0.1.0 where this machine has 0.2.0",
                     "not installed there: libcst==1.5.0", "installed there only: requests==2.32.0",
                     "its sandbox is none where this machine's is bubblewrap"]
    assert cluster.differences(here, here) == [] and here.digest != there.digest


def test_cluster_environment_here_is_this_interpreter():
    mine = cluster.environment("none")
    assert mine.python.split()[-1] == ".".join(map(str, __import__("sys").version_info[:3]))
    assert mine.isolation == "none" and any(d.startswith("pytest==") for d in mine.distributions)


def test_cluster_address_from_the_project_file_is_used_only_when_base_already_had_it():
    base = '[project]\nname = "x"\n\n[tool.elenchus]\ncluster = "tcp://scheduler:8786"\n'
    cluster.unconfirmed_address("tcp://scheduler:8786", base)  # Base had it: the change did not choose it
    for before in (None, "", '[tool.elenchus]\nbudget = 8\n', base.replace("scheduler:", "elsewhere:"), "not toml ["):
        with pytest.raises(cluster.ClusterUnavailable, match="pass --cluster on the command line"):
            cluster.unconfirmed_address("tcp://scheduler:8786", before)
