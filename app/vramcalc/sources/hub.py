"""A model from its Hugging Face repository, on request (`--hf ORG/NAME[@REVISION]`): what `--config` and
`--weights` read from files on this machine, read from the Hub's routes instead, the tensors' data never.

The routes, as `huggingface_hub` reads them (an endpoint of the same shape serves a mirror or the tests' stub):
- `GET {endpoint}/api/models/{repo}/revision/{revision}?blobs=true`, the model info: its commit (`sha`, so
  every file after it comes from one commit), its files (`siblings`: `rfilename` and, with `blobs=true`, `size`)
  and the parameter counts the Hub read from its safetensors files (`safetensors.total`). It says what to read.
- `GET {endpoint}/{repo}/resolve/{commit}/config.json`, the model as `--config` reads it, and
  `model.safetensors.index.json`, which names the shards (its `weight_map`).
- The same route with `Range: bytes=START-END` for each weight file's header only: a safetensors file starts
  with a little-endian u64 N then N bytes of JSON; a GGUF file with its metadata and tensor list. The readers of
  formats/headers.py say how many bytes they need next (`Truncated`), so only those bytes are asked for. The Hub
  answers a weight file's resolve with a redirect to its storage; the token is not sent on to another host.

A GGUF repository (no config.json, `*.gguf` files) holds one model per quantisation: `gguf_files` lists them
with their sizes, and one is read, the one `--hf-file` names (a file, or its quant as llama.cpp's
`-hf ORG/NAME:Q4_K_M` names it), or the only one there is; with several and none named, the error lists them.

A token for gated and private repositories comes from the environment (HF_TOKEN) and goes in
`Authorization: Bearer`. Everything that goes wrong is a ValidationError naming the field ("hf", or
"hf-endpoint" and "hf-file"): a malformed id, a gated or missing repository or revision, an endpoint that
cannot be reached in TIMEOUT seconds. urllib is imported where the requests are made: the page, which runs
this package but makes its own requests, never loads it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING
from urllib.parse import quote, urlsplit

from ..core.errors import ValidationError
from ..core.units import format_binary
from ..formats.file_weights import WeightsGiven
from ..formats.headers import Header, Truncated, read_header, read_safetensors_index

if TYPE_CHECKING:
    import urllib.request
    from http.client import HTTPMessage
    from typing import IO

DEFAULT_ENDPOINT = "https://huggingface.co"
TIMEOUT = 10.0  # seconds per request: a connection or a read that takes longer is a failure to reach the Hub
FIRST_READ = 64 * 2**10  # the first bytes of a weight file asked for; its reader asks for the rest
MAX_JSON_BYTES = 64 * 2**20  # the model info, the index, config.json (parse_config_json then takes 1 MB at most)
PARALLEL = 8  # shards whose headers are read at once
FIELD = "hf"

_PART = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
_ID = re.compile(rf"({_PART})/({_PART})(?:@([A-Za-z0-9][A-Za-z0-9._/-]*))?")
MAX_ID = 96  # the Hub's limit on ORG/NAME
MAX_REVISION = 200
_SPLIT = re.compile(r"-(\d{5})-of-(\d{5})\.gguf$")
_COMMIT = re.compile(r"[0-9a-f]{40}")


@dataclasses.dataclass(frozen=True)
class GgufFile:
    """One model of a GGUF repository: a file, or the parts of a split one (the first part names it)."""

    name: str
    parts: tuple[str, ...]
    size: int | None  # bytes of all its parts, when the Hub lists them

    def describe(self) -> str:
        parts = f" in {len(self.parts)} parts" if len(self.parts) > 1 else ""
        return f"{self.name} ({'size not listed' if self.size is None else format_binary(self.size)}{parts})"


@dataclasses.dataclass(frozen=True)
class HubModel:
    repo: str  # ORG/NAME
    commit: str  # the commit every file was read at (the revision asked for, when the Hub gives none)
    config_text: str | None  # config.json; None for a GGUF repository, whose file's metadata is the model
    weights: WeightsGiven | None  # the headers read: the safetensors shards, or the GGUF file chosen
    gguf_files: tuple[GgufFile, ...] = ()  # a GGUF repository's models, each with its size
    parameters: int | None = None  # the Hub's count from the safetensors files (`safetensors.total`)


def parse_id(text: str) -> tuple[str, str]:
    """`ORG/NAME[@REVISION]` -> (repo, revision), strictly: the Hub's characters for names, a branch, tag or
    commit for the revision (default main)."""
    match = _ID.fullmatch(text.strip())
    if match is None:
        raise ValidationError(FIELD, text, "expected ORG/NAME or ORG/NAME@REVISION, the repository's id as in "
                                           "huggingface.co/ORG/NAME (e.g. Qwen/Qwen3-8B)")
    org, name, revision = match.groups()
    repo = f"{org}/{name}"
    if len(repo) > MAX_ID or "--" in repo or ".." in repo or name.endswith(".git"):
        raise ValidationError(FIELD, text, f"not a Hugging Face repository id (at most {MAX_ID} characters, "
                                           "no '--' or '..', not ending in .git)")
    if revision is not None and (len(revision) > MAX_REVISION or ".." in revision or revision.endswith("/")):
        raise ValidationError(FIELD, text, "the revision after @ must be a branch, a tag or a commit")
    return repo, revision or "main"


def endpoint_of(given: str | None, environ: Mapping[str, str] = os.environ) -> str:
    """The Hub's address: `--hf-endpoint`, else HF_ENDPOINT (as huggingface_hub reads it), else huggingface.co."""
    text = (given or environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).strip().rstrip("/")
    try:
        parts = urlsplit(text)
        well_formed = (parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
                       and not parts.query and not parts.fragment)
    except ValueError:  # a bad port or IPv6 address
        well_formed = False
    if not well_formed:
        where = "" if given else " (from HF_ENDPOINT)"
        raise ValidationError("hf-endpoint", text, f"expected an http(s) address such as {DEFAULT_ENDPOINT}{where}")
    return text


def gguf_files(siblings: Sequence[tuple[str, int | None]]) -> tuple[GgufFile, ...]:
    """The models among a repository's files: each `.gguf`, a split file's parts as one, the vision
    projectors (`mmproj`) left out, since they are no model alone."""
    models: dict[str, list[tuple[str, int | None]]] = {}
    for name, size in sorted(siblings):
        if not name.endswith(".gguf") or "mmproj" in name.rsplit("/", 1)[-1].lower():
            continue
        models.setdefault(_SPLIT.sub(".gguf", name), []).append((name, size))
    return tuple(GgufFile(name=parts[0][0], parts=tuple(n for n, _ in parts),
                          size=None if any(s is None for _, s in parts) else sum(s or 0 for _, s in parts))
                 for parts in models.values())


def choose_gguf(repo: str, files: Sequence[GgufFile], wanted: str | None) -> GgufFile:
    """The file `wanted` names (its name, its path, or its quant: Q4_K_M), or the only one; else the list."""
    listed = "; ".join(f.describe() for f in files)
    if not files:
        raise ValidationError("hf-file", wanted, f"{repo} holds no GGUF model file")
    if wanted is None:
        if len(files) == 1:
            return files[0]
        raise ValidationError("hf-file", "", f"{repo} holds {len(files)} GGUF models: name one with --hf-file "
                                               f"(a file, or its quant as in Q4_K_M): {listed}")
    tag = re.compile(rf"(?<![A-Za-z0-9]){re.escape(wanted)}(?![A-Za-z0-9])", re.IGNORECASE)
    exact = [f for f in files if wanted in (f.name, f.name.rsplit("/", 1)[-1], *f.parts)]
    found = exact or [f for f in files if tag.search(f.name)]
    if len(found) != 1:
        how = "names several" if found else "names none"
        raise ValidationError("hf-file", wanted, f"{how} of the GGUF models of {repo}: {listed}")
    return found[0]


def load(hf: str, *, endpoint: str | None = None, file: str | None = None,
         environ: Mapping[str, str] = os.environ) -> HubModel:
    """The model `hf` names, read from the Hub: its config.json and its safetensors headers, or, for a GGUF
    repository, the header of the file chosen (`file`, see choose_gguf)."""
    repo, hub, info, commit = model_info(hf, endpoint, environ)
    siblings = files_of(info)
    names = {name for name, _ in siblings}
    stats = info.get("safetensors")
    total = stats.get("total") if isinstance(stats, dict) else None
    parameters = total if isinstance(total, int) and not isinstance(total, bool) else None
    resolve = f"{repo}/resolve/{quote(commit, safe='')}/"
    models = gguf_files(siblings)
    shards = _safetensors_files(resolve, names, hub)
    if file is not None or (models and not shards):
        chosen = choose_gguf(repo, models, file)
        headers = hub.headers([resolve + quote(part) for part in chosen.parts])
        return HubModel(repo, commit, None, WeightsGiven(f"{repo}/{chosen.name}", headers), models, parameters)
    if "config.json" not in names:
        said = ("a diffusers pipeline (model_index.json), not a language model (vramcalc diffusion --hf reads it)"
                if "model_index.json" in names else "no config.json and no GGUF file")
        raise ValidationError(FIELD, hf, f"{repo} holds {said}: this calculator reads a language model's "
                                         "config.json or its GGUF files")
    config = hub.text(resolve + "config.json")
    weights = WeightsGiven(repo, hub.headers([resolve + quote(s) for s in shards])) if shards else None
    return HubModel(repo, commit, config, weights, models, parameters)


def model_info(hf: str, endpoint: str | None, environ: Mapping[str, str]) -> tuple[str, Hub, dict[str, object], str]:
    """The repository, its Hub (`text` reads a file), its model info and the commit every file is then read at."""
    repo, revision = parse_id(hf)
    hub = Hub(endpoint_of(endpoint, environ), hf, environ.get("HF_TOKEN") or None)
    info = hub.json(f"api/models/{repo}/revision/{quote(revision, safe='')}?blobs=true")
    if not isinstance(info, dict):
        raise ValidationError(FIELD, hf, f"{hub.endpoint} did not answer with a model's info")
    sha = info.get("sha")
    return repo, hub, info, sha if isinstance(sha, str) and _COMMIT.fullmatch(sha) else revision


def files_of(info: Mapping[str, object]) -> list[tuple[str, int | None]]:
    """The files a model info lists (`siblings`), each with its size when the Hub gives one."""
    listed = info.get("siblings")
    siblings = []
    for entry in listed if isinstance(listed, list) else []:
        name = entry.get("rfilename") if isinstance(entry, dict) else None
        size = entry.get("size") if isinstance(entry, dict) else None
        if isinstance(name, str):
            siblings.append((name, size if isinstance(size, int) and not isinstance(size, bool) else None))
    return siblings


def _safetensors_files(resolve: str, names: set[str], hub: Hub) -> list[str]:
    """The files of the checkpoint at the repository's top: the shards its index names, or its one file."""
    if "model.safetensors.index.json" in names:
        _, weight_map = read_safetensors_index(hub.text(resolve + "model.safetensors.index.json"))
        return sorted(set(weight_map.values()))
    top = sorted(n for n in names if n.endswith(".safetensors") and "/" not in n)
    return ["model.safetensors"] if "model.safetensors" in top else top[:1] if len(top) == 1 else []


def _opener() -> urllib.request.OpenerDirector:
    """urllib's, with redirects that keep the Range header (as urllib's do) and drop the token when they
    lead to another host: the Hub sends a weight file's resolve on to its storage."""
    import urllib.request

    class SameHostToken(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str,
                             headers: HTTPMessage, newurl: str) -> urllib.request.Request | None:
            new = super().redirect_request(req, fp, code, msg, headers, newurl)
            if new is not None and urlsplit(new.full_url).netloc != urlsplit(req.full_url).netloc:
                new.remove_header("Authorization")
            return new

    return urllib.request.build_opener(SameHostToken)


class Hub:
    """Requests to one endpoint for one id, every failure in words naming the id."""

    def __init__(self, endpoint: str, hf: str, token: str | None) -> None:
        self.endpoint, self.hf, self.token = endpoint, hf, token
        self.repo, self.revision = parse_id(hf)
        self.opener = _opener()

    def get(self, path: str, what: str, start: int | None = None, end: int | None = None) -> bytes:
        """The bytes at `path` (at most MAX_JSON_BYTES + 1), or, with `start` and `end`, bytes start..end-1."""
        import http.client
        import urllib.error
        import urllib.request

        request = urllib.request.Request(f"{self.endpoint}/{path}", headers={"User-Agent": "vramcalc"})
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        if start is not None and end is not None:
            request.add_header("Range", f"bytes={start}-{end - 1}")
        try:
            with self.opener.open(request, timeout=TIMEOUT) as response:
                if start is None or end is None:
                    return bytes(response.read(MAX_JSON_BYTES + 1))
                if response.status == 206:
                    return bytes(response.read(end - start))
                return bytes(response.read(end))[start:]  # a server that ignores Range: its first bytes only
        except urllib.error.HTTPError as error:
            if error.code == 416:  # the range starts past the file's end
                return b""
            raise self.refused(error.code, error.headers.get("X-Error-Code", ""), what) from None
        except (OSError, http.client.HTTPException) as error:
            reason = getattr(error, "reason", error)
            said = getattr(reason, "strerror", None) or str(reason) or reason.__class__.__name__
            raise ValidationError(FIELD, self.hf, f"could not reach {self.endpoint} ({said}); --config and "
                                                  "--weights work offline, from files on this machine") from None

    def refused(self, code: int, kind: str, what: str) -> ValidationError:
        """An HTTP error in words; the Hub names its kind in X-Error-Code (and answers 401 for a missing
        repository to whoever has no token, as it does for a private one)."""
        if kind == "RevisionNotFound":
            reason = f"{self.repo} has no revision {self.revision!r} (a branch, a tag or a commit)"
        elif kind == "RepoNotFound" or (code == 404 and not what):
            reason = f"no repository {self.repo} on {self.endpoint}" + (
                "" if self.token else " (or a private one: set HF_TOKEN to read it)")
        elif code in (401, 403):
            reason = (f"{self.repo} is gated: {'HF_TOKEN does not give access to it; ' if self.token else ''}accept "
                      "its terms on its page and set HF_TOKEN to a token of yours, or give its config.json with "
                      "--config")
        elif code == 429:
            reason = f"{self.endpoint} limits requests (HTTP 429): try again later, or set HF_TOKEN"
        else:
            reason = f"{self.endpoint} answered HTTP {code} for {what or 'the model info'} of {self.repo}"
        return ValidationError(FIELD, self.hf, reason)

    def json(self, path: str) -> object:
        data = self.get(path, "")
        try:
            if len(data) > MAX_JSON_BYTES:
                raise ValueError
            return json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise ValidationError(FIELD, self.hf, f"{self.endpoint} did not answer with a model's info") from None

    def text(self, path: str) -> str:
        name = path.rsplit("/", 1)[-1]
        data = self.get(path, name)
        if len(data) > MAX_JSON_BYTES:
            raise ValidationError(FIELD, self.hf, f"its {name} is larger than {MAX_JSON_BYTES:,} bytes")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise ValidationError(FIELD, self.hf, f"its {name} is not UTF-8 text") from None

    def header(self, path: str) -> Header:
        """One weight file's header: FIRST_READ bytes, then the bytes its reader asks for, appended."""
        name = path.rsplit("/", 1)[-1]
        asked = FIRST_READ
        data = self.get(path, name, 0, asked)
        while True:
            try:
                return read_header(data, name)
            except Truncated as more:
                if len(data) < asked:
                    raise ValidationError("weights", name, "the file ends inside its header") from None
                data += self.get(path, name, len(data), more.needed)
                asked = more.needed

    def headers(self, paths: Sequence[str]) -> tuple[Header, ...]:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
            return tuple(pool.map(self.header, paths))
