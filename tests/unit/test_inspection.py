from elenchus.inspection import inspect_tree, scan_source


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
