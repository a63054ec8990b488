from elenchus.execution.inspection import inspect_tree, scan_source


def concerns(source, path="tests/test_x.py"):
    return [(f.concern, f.line) for f in scan_source(path, source)]


def test_inspection_flags_a_shell_call_that_downloads_or_deletes():
    assert concerns('import subprocess\nsubprocess.run(["curl", "-s", "https://x.invalid"])\n') == [
        ("destructive", 2)]
    assert concerns('import os\nos.system("rm -rf build")\n') == [("destructive", 2)]


def test_inspection_flags_deleting_absolute_or_home_paths_but_not_relative_ones():
    assert concerns('import shutil\nshutil.rmtree("/var/data")\n') == [("destructive", 2)]
    assert concerns('import shutil\nshutil.rmtree("build")\n') == []


def test_inspection_flags_credential_locations_and_network_setup_in_conftest():
    assert concerns('open(os.path.expanduser("~/.aws/credentials"))\n') == [("credentials", 1)]
    assert concerns("import requests\n", path="tests/conftest.py") == [("network", 1)]


def test_inspection_flags_a_test_file_only_when_a_network_client_meets_a_remote_address():
    assert concerns("import requests\n\ndef test_a(monkeypatch):\n    pass\n") == []
    assert concerns('import requests\nURL = "http://localhost:8000/"\n') == []
    assert concerns('import requests\nURL = "https://api.service.invalid/v1"\n') == [("network", 2)]


def test_inspection_reads_conftest_files_of_the_whole_tree(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/conftest.py").write_text('import subprocess\nsubprocess.call("sudo reboot", shell=True)\n')
    (tmp_path / "tests/test_a.py").write_text("def test_a():\n    assert 1\n")
    found = inspect_tree(tmp_path, ("tests/test_a.py",))
    assert [(f.path, f.line, f.concern) for f in found] == [("tests/conftest.py", 2, "destructive")]


def test_without_a_sandbox_only_tests_that_reach_no_file_process_or_network_are_cleared(tmp_path):
    from elenchus.execution.inspection import uncleared

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_plain.py").write_text(
        "import math\nimport pytest\nfrom shop.calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n")
    assert uncleared(tmp_path, ("tests/test_plain.py",)) == ()
    # spellings a reading cannot follow: a name built at run time, a path object, a module reached by name
    (tmp_path / "tests" / "test_sly.py").write_text(
        "import pathlib\nfrom shutil import rmtree as tidy\n\n\ndef test_sly():\n"
        "    getattr(__builtins__, 'ev' + 'al')('1')\n    open('/etc/hosts')\n")
    assert uncleared(tmp_path, ("tests/test_sly.py",)) == (
        "tests/test_sly.py:1: imports pathlib", "tests/test_sly.py:2: imports shutil",
        "tests/test_sly.py:6: calls getattr()", "tests/test_sly.py:7: calls open()")
    # a conftest anywhere in the tree is read too
    (tmp_path / "conftest.py").write_text("import subprocess\n")
    assert uncleared(tmp_path, ("tests/test_plain.py",)) == ("conftest.py:1: imports subprocess",)
