"""The bundled word-set cache (routelab.corpus.corpora.bundled_words): built once, by one
process, while the others wait; complete only once its report is written."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from routelab.corpus import corpora
from routelab.corpus import preprocess as pp


def test_two_callers_at_once_build_the_cache_once(tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "tweets_words-test"
    builds: list[str] = []

    def slow_build(spark, where, progress=True):  # noqa: ANN001, ANN202
        builds.append(threading.current_thread().name)
        (Path(where) / pp.POSTS_DIR).mkdir(parents=True)
        time.sleep(0.3)  # the other caller arrives while this one is still writing
        (Path(where) / pp.REPORT_FILE).write_text("{}")

    monkeypatch.setattr(pp, "bundled_words_dir", lambda: out)
    monkeypatch.setattr(pp, "preprocess_bundled", slow_build)
    seen: list[bool] = []

    def call() -> None:
        d = corpora.bundled_words(spark=object(), progress=False)
        seen.append((d / pp.REPORT_FILE).exists())  # never handed a partial directory

    threads = [threading.Thread(target=call, name=f"caller{i}") for i in range(2)]
    for t in threads:
        t.start()
        time.sleep(0.05)
    for t in threads:
        t.join()
    assert len(builds) == 1 and seen == [True, True]
    corpora.bundled_words(spark=object(), progress=False)  # built: no second build
    assert len(builds) == 1


def test_a_directory_without_its_report_is_rebuilt(tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "tweets_words-test"
    (out / pp.POSTS_DIR).mkdir(parents=True)  # an interrupted build: Parquet, no report
    builds: list[Path] = []
    monkeypatch.setattr(pp, "bundled_words_dir", lambda: out)
    monkeypatch.setattr(
        pp, "preprocess_bundled",
        lambda spark, where, progress=True: builds.append(Path(where))
        or (Path(where) / pp.REPORT_FILE).write_text("{}"),
    )  # fmt: skip
    assert corpora.bundled_words(spark=object(), progress=False) == out
    assert builds == [out]
