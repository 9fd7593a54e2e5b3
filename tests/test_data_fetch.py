"""Fetch: mirror and URL sources, sha256 checks, clear errors, nothing half-written."""

import hashlib
import io
import json
import urllib.error

import pytest

from fxai.data.fetch import MIRROR_ENV, fetch, mirror_dir, obtainable
from fxai.errors import FetchError

DATA = b"a\tb\ttarget\n1\t0\t1\n0\t1\t0\n"
SHA = hashlib.sha256(DATA).hexdigest()


@pytest.fixture(autouse=True)
def _no_env_mirror(monkeypatch):
    monkeypatch.delenv(MIRROR_ENV, raising=False)


def entry(sha=SHA, urls=(), mirror="toy/toy.tsv", **extra):
    return {"files": [{"name": "toy.tsv", "mirror": mirror, "sha256": sha, "urls": list(urls),
                       **extra}]}


def leftovers(d):
    return sorted(p.name for p in d.iterdir()) if d.exists() else []


def test_mirror_good_checksum(tmp_path):
    (tmp_path / "m" / "toy").mkdir(parents=True)
    (tmp_path / "m" / "toy" / "toy.tsv").write_bytes(DATA)
    man = fetch("toy", entry(), tmp_path / "raw", mirror=tmp_path / "m")
    assert (tmp_path / "raw" / "toy" / "toy.tsv").read_bytes() == DATA
    rec = json.loads(man.read_text())["files"][0]
    assert rec["source"] == "mirror" and rec["sha256"] == SHA and rec["verified"]


def test_env_mirror_overrides_config(tmp_path, monkeypatch):
    (tmp_path / "env").mkdir()
    (tmp_path / "configured").mkdir()
    monkeypatch.setenv(MIRROR_ENV, str(tmp_path / "env"))
    assert mirror_dir(tmp_path / "configured") == tmp_path / "env"
    monkeypatch.delenv(MIRROR_ENV)
    assert mirror_dir(None) is None
    assert mirror_dir(tmp_path / "configured") == tmp_path / "configured"


def test_mirror_that_is_not_a_directory_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv(MIRROR_ENV, str(tmp_path / "nope"))
    with pytest.raises(FetchError, match=rf"the data mirror {tmp_path / 'nope'} \(set by "
                                         r"\$FXAI_DATA_MIRROR\) is not a directory"):
        mirror_dir(None)
    monkeypatch.delenv(MIRROR_ENV)
    with pytest.raises(FetchError, match="set by data.mirror / --mirror"):
        mirror_dir(tmp_path / "nope")


def test_mirror_bad_checksum_leaves_nothing(tmp_path):
    (tmp_path / "m" / "toy").mkdir(parents=True)
    (tmp_path / "m" / "toy" / "toy.tsv").write_bytes(DATA + b"junk")
    with pytest.raises(FetchError) as e:
        fetch("toy", entry(), tmp_path / "raw", mirror=tmp_path / "m")
    msg = str(e.value)
    assert "'toy'" in msg and "differs from the registry's" in msg and SHA in msg
    assert leftovers(tmp_path / "raw" / "toy") == []


def test_missing_mirror_file_names_path_and_remedy(tmp_path):
    (tmp_path / "m").mkdir()
    with pytest.raises(FetchError, match=r"toy/toy.tsv: does not exist.*Put a verified copy"):
        fetch("toy", entry(), tmp_path / "raw", mirror=tmp_path / "m")
    assert leftovers(tmp_path / "raw" / "toy") == []


def test_file_url_good_and_bad_checksum(tmp_path):
    src = tmp_path / "online.tsv"
    src.write_bytes(DATA)
    man = fetch("toy", entry(urls=[src.as_uri()]), tmp_path / "raw")
    assert json.loads(man.read_text())["files"][0]["source"] == "url"
    with pytest.raises(FetchError, match="online file changed"):
        fetch("toy2", entry(sha="0" * 64, urls=[src.as_uri()]), tmp_path / "raw")
    assert leftovers(tmp_path / "raw" / "toy2") == []


def test_url_sha256_overrides_for_online_copy(tmp_path):
    src = tmp_path / "online.tsv"
    src.write_bytes(DATA)
    man = fetch("toy", entry(sha="0" * 64, urls=[src.as_uri()], url_sha256=SHA), tmp_path / "r")
    assert json.loads(man.read_text())["files"][0]["verified"]


def test_unreachable_url_tries_all_then_fails(tmp_path):
    calls = []

    def opener(url, timeout):
        calls.append(url)
        raise urllib.error.URLError("no route to host")

    urls = ["https://a.invalid/x", "https://b.invalid/x"]
    with pytest.raises(FetchError) as e:
        fetch("toy", entry(urls=urls), tmp_path / "raw", opener=opener)
    assert calls == urls
    assert all(u in str(e.value) for u in urls) and "Check the network" in str(e.value)
    assert leftovers(tmp_path / "raw" / "toy") == []


def test_second_url_after_failure_and_interrupted_download(tmp_path):
    class Broken(io.BytesIO):
        def read(self, n=-1):
            raise ConnectionResetError("reset mid-download")

    def opener(url, timeout):
        return Broken(DATA) if "first" in url else io.BytesIO(DATA)

    fetch("toy", entry(urls=["https://first/x", "https://second/x"]), tmp_path / "raw",
          opener=opener)
    assert leftovers(tmp_path / "raw" / "toy") == ["manifest.json", "toy.tsv"]


def test_earlier_files_removed_when_a_later_one_fails(tmp_path):
    (tmp_path / "m" / "toy").mkdir(parents=True)
    (tmp_path / "m" / "toy" / "toy.tsv").write_bytes(DATA)
    ent = entry()
    ent["files"].append({"name": "b.tsv", "mirror": "toy/b.tsv", "sha256": SHA, "urls": []})
    with pytest.raises(FetchError, match="b.tsv"):
        fetch("toy", ent, tmp_path / "raw", mirror=tmp_path / "m")
    assert leftovers(tmp_path / "raw" / "toy") == []


def test_optional_file_skipped_and_unknown_checksum_recorded(tmp_path):
    (tmp_path / "m" / "toy").mkdir(parents=True)
    (tmp_path / "m" / "toy" / "toy.tsv").write_bytes(DATA)
    ent = entry(sha=None, mirror=None)
    ent["files"].append({"name": "big.gz", "mirror": None, "sha256": None,
                         "urls": ["https://x/big.gz"], "optional": True})
    man = json.loads(fetch("toy", ent, tmp_path / "raw", mirror=tmp_path / "m").read_text())
    assert [f["name"] for f in man["files"]] == ["toy.tsv"]
    assert man["files"][0]["sha256"] == SHA and not man["files"][0]["verified"]


def test_no_url_known(tmp_path):
    with pytest.raises(FetchError, match="no URL is known"):
        fetch("toy", entry(urls=[]), tmp_path / "raw")
    with pytest.raises(FetchError, match="no raw files"):
        fetch("toy", {"generator": {"name": "mux6"}}, tmp_path / "raw")


def test_obtainable_checks_mirror_or_urls(tmp_path):
    (tmp_path / "toy").mkdir()
    assert not obtainable("toy", entry(), tmp_path)
    (tmp_path / "toy" / "toy.tsv").write_bytes(DATA)
    assert obtainable("toy", entry(), tmp_path)
    assert not obtainable("toy", entry(urls=[]), None)
    assert obtainable("toy", entry(urls=["https://x/y"]), None)
