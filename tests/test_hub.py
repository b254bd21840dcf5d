"""`--hf ORG/NAME[@REV]` against a stub Hub on 127.0.0.1: the Hub's routes (the model info, resolve/, ranged
reads of the weight files through a redirect to a storage host, as huggingface.co answers them) served from
tests/data/hub/repos.json, whose repositories hold the weight fixtures of tests/data/weights. What it reads
equals what --config and --weights read from the same files; what goes wrong is one line naming the field."""

from __future__ import annotations

import contextlib
import io
import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vramcalc.core.errors import ValidationError
from vramcalc.sources import hub

DATA = Path(__file__).parent / "data"
WEIGHTS = DATA / "weights"
REPOS = json.loads((DATA / "hub" / "repos.json").read_text(encoding="utf-8"))["repos"]
LFS = (".safetensors", ".gguf")  # the files the Hub sends on to its storage


class Stub:
    def __init__(self) -> None:
        self.log: list[tuple[str, str, dict[str, str]]] = []  # (server, path, headers) of every request
        self.storage = ""
        self.served: dict[str, int] = {}  # bytes of each weight file sent by the storage


class Server(ThreadingHTTPServer):
    role = "hub"  # or "storage"
    stub: Stub


class Handler(BaseHTTPRequestHandler):
    server: Server

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        stub, role = self.server.stub, self.server.role
        url = urlsplit(self.path)
        parts = [unquote(p) for p in url.path.split("/")[1:]]
        stub.log.append((role, self.path, dict(self.headers)))
        if role == "storage":
            return self.file(stub, "/".join(parts[:2]), "/".join(parts[2:]), ranged=True)
        if parts[:2] == ["api", "models"] and len(parts) == 6 and parts[4] == "revision":
            return self.info("/".join(parts[2:4]), parts[5], "blobs" in parse_qs(url.query))
        if len(parts) >= 5 and parts[2] == "resolve":
            return self.resolve("/".join(parts[:2]), parts[3], "/".join(parts[4:]))
        return self.error(404, "EntryNotFound")

    def repo(self, name: str, revision: str) -> dict | None:
        entry = REPOS.get(name)
        if entry is None:  # the Hub answers 401 to whoever has no token, as for a private repository
            self.error(404 if "Authorization" in self.headers else 401, "RepoNotFound")
        elif revision not in (*entry["revisions"], entry["sha"]):
            self.error(404, "RevisionNotFound")
        else:
            return entry
        return None

    def info(self, name: str, revision: str, blobs: bool) -> None:
        entry = self.repo(name, revision)
        if entry is None:
            return
        siblings = [{"rfilename": file} | ({"size": (DATA / path).stat().st_size} if blobs else {})
                    for file, path in entry["files"].items()]
        body = {"id": name, "sha": entry["sha"], "private": False, "gated": entry.get("gated", False),
                "siblings": siblings} | ({"safetensors": entry["safetensors"]} if "safetensors" in entry else {})
        self.send(200, json.dumps(body).encode(), "application/json")

    def resolve(self, name: str, revision: str, file: str) -> None:
        entry = self.repo(name, revision)
        if entry is None:
            return
        if "token" in entry and self.headers.get("Authorization") != f"Bearer {entry['token']}":
            return self.error(403 if "Authorization" in self.headers else 401, "GatedRepo")
        if file not in entry["files"]:
            return self.error(404, "EntryNotFound")
        if file.endswith(LFS):
            self.send_response(302)
            self.send_header("Location", f"{self.server.stub.storage}/{quote(name)}/{quote(file)}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        return self.file(self.server.stub, name, file, ranged=False)

    def file(self, stub: Stub, name: str, file: str, *, ranged: bool) -> None:
        data = (DATA / REPOS[name]["files"][file]).read_bytes()
        asked = self.headers.get("Range", "")
        if not (ranged and asked.startswith("bytes=")):
            return self.send(200, data, "application/octet-stream")
        first, _, last = asked[6:].partition("-")
        start, end = int(first), min(int(last) + 1, len(data))
        if start >= len(data):
            return self.error(416, "")
        stub.served[file] = stub.served.get(file, 0) + end - start
        self.send_response(206)
        self.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(data)}")
        self.send_header("Content-Length", str(end - start))
        self.end_headers()
        self.wfile.write(data[start:end])
        return None

    def send(self, code: int, body: bytes, kind: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def error(self, code: int, kind: str) -> None:
        self.send_response(code)
        if kind:
            self.send_header("X-Error-Code", kind)
        self.send_header("Content-Length", "0")
        self.end_headers()


@contextlib.contextmanager
def _server(role: str, stub: Stub) -> Iterator[str]:
    server = Server(("127.0.0.1", 0), Handler)
    server.role, server.stub = role, stub
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def stub() -> Iterator[tuple[str, Stub]]:
    """The Hub and its storage, a host of its own (another port), as huggingface.co sends LFS files on."""
    state = Stub()
    with _server("hub", state) as url, _server("storage", state) as storage:
        state.storage = storage
        yield url, state


def _refusing_port() -> int:
    with socket.socket() as probe:  # a port just freed: nothing listens there, so connecting is refused
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    """No test reaches huggingface.co: the default endpoint is a refusing port, and no token is set."""
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{_refusing_port()}")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")


def run(*args: str, json_out: bool = True) -> tuple[int, object]:
    from vramcalc.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*args, "--json"] if json_out else list(args))
    if code != 0:
        return code, err.getvalue()
    return code, json.loads(out.getvalue()) if json_out else out.getvalue()


# ---------------------------------------------------------------- what a repository gives


def test_a_config_only_repository_is_its_config_json_as_config_reads_it(stub):
    url, state = stub
    config = str(DATA / "hub" / "tiiuae" / "Falcon3-7B-Instruct" / "config.json")
    for command in ([], ["fit", "--gpu", "h100-80gb"]):
        code, data = run(*command, "--hf", "tiiuae/Falcon3-7B-Instruct", "--hf-endpoint", url, "--seq", "8192")
        assert code == 0, data
        assert data == run(*command, "--config", config, "--seq", "8192")[1]
    code, text = run("--hf", "tiiuae/Falcon3-7B-Instruct@v1.0", "--hf-endpoint", url, json_out=False)
    assert code == 0 and str(text).startswith("tiiuae/Falcon3-7B-Instruct: 7.46B parameters"), text
    # the files come from the commit the model info names, whatever the revision asked for
    resolved = [path for role, path, _ in state.log if "/resolve/" in path]
    assert resolved and all(f"/resolve/{REPOS['tiiuae/Falcon3-7B-Instruct']['sha']}/" in p for p in resolved)


def test_a_sharded_safetensors_repository_gives_the_bytes_weights_gives_reading_only_the_headers(stub, monkeypatch):
    url, state = stub
    expected = run("--weights", str(WEIGHTS / "tiny-qwen3-sharded"))[1]
    code, data = run("--hf", "tiny/qwen3-sharded", "--hf-endpoint", url)
    assert code == 0, data
    assert data == expected
    assert data["components"]["weights"] == 185408  # the index's metadata.total_size
    shards = [f for f in REPOS["tiny/qwen3-sharded"]["files"] if f.endswith(".safetensors")]
    assert all(state.served[s] < (WEIGHTS / "tiny-qwen3-sharded" / s).stat().st_size for s in shards)
    storage = [headers for role, _, headers in state.log if role == "storage"]
    assert len(storage) == 2 and all(h["Range"].startswith("bytes=0-") for h in storage)
    # read from the first 8 bytes on: the u64 length, then exactly the JSON header it gives
    state.served.clear()
    monkeypatch.setattr(hub, "FIRST_READ", 8)
    assert run("--hf", "tiny/qwen3-sharded", "--hf-endpoint", url)[1] == expected
    for shard in shards:
        length = int.from_bytes((WEIGHTS / "tiny-qwen3-sharded" / shard).read_bytes()[:8], "little")
        assert state.served[shard] == 8 + length


def test_the_model_info_is_read_with_its_file_sizes_and_parameter_counts(stub):
    url, _ = stub
    model = hub.load("tiny/qwen3-sharded", endpoint=url)
    assert model.parameters == 86464 and model.commit == REPOS["tiny/qwen3-sharded"]["sha"]
    assert model.weights is not None and sum(h.nbytes for h in model.weights.headers) == 185408
    listed = hub.load("tiny/llama-one-GGUF", endpoint=url).gguf_files
    assert [(f.name, f.size) for f in listed] == [("tiny-llama-Q4_K_M.gguf", 89920)]


def test_a_gguf_repository_lists_its_files_with_their_sizes_and_reads_the_one_chosen(stub):
    url, state = stub
    code, message = run("--hf", "tiny/llama-GGUF", "--hf-endpoint", url)
    assert code == 2 and message.count("\n") == 1, message
    assert message.startswith("vramcalc: error: hf-file: got ''; tiny/llama-GGUF holds 3 GGUF models")
    assert "tiny-llama-Q4_K_M.gguf (87.81 KiB)" in message and "tiny-llama-Q8_0.gguf (87.81 KiB)" in message
    assert "Q2_K/tiny-llama-Q2_K-00001-of-00002.gguf (107.72 KiB in 2 parts)" in message
    assert "mmproj" not in message  # a projector is no model alone
    assert not [path for _, path, _ in state.log if "/resolve/" in path]  # nothing read before the choice
    expected = run("--weights", str(WEIGHTS / "tiny-llama-q4_k_m.gguf"))[1]
    code, data = run("--hf", "tiny/llama-GGUF", "--hf-endpoint", url, "--hf-file", "tiny-llama-Q4_K_M.gguf")
    assert code == 0, data
    assert data == expected and data["runtime"]["name"] == "llamacpp"
    state.log.clear()
    assert run("fit", "--gpu", "rtx4090", "--hf", "tiny/llama-GGUF", "--hf-endpoint", url, "--hf-file", "q8_0")[0] == 0
    assert [path for role, path, _ in state.log if role == "storage"] == ["/tiny/llama-GGUF/tiny-llama-Q8_0.gguf"]
    code, message = run("--hf", "tiny/llama-GGUF", "--hf-endpoint", url, "--hf-file", "Q5_K_M")
    assert code == 2 and "hf-file: got 'Q5_K_M'; names none of the GGUF models of tiny/llama-GGUF" in message


def test_a_repository_of_one_gguf_model_reads_it_without_asking(stub):
    url, _ = stub
    code, data = run("--hf", "tiny/llama-one-GGUF", "--hf-endpoint", url)
    assert code == 0, data
    assert data == run("--weights", str(WEIGHTS / "tiny-llama-q4_k_m.gguf"))[1]


def test_the_token_opens_a_gated_repository_and_goes_to_the_hub_only(stub, monkeypatch):
    url, state = stub
    code, message = run("--hf", "tiny/qwen3-gated", "--hf-endpoint", url)
    assert code == 2 and message.count("\n") == 1
    assert message.startswith("vramcalc: error: hf: got 'tiny/qwen3-gated'; tiny/qwen3-gated is gated: accept")
    assert "set HF_TOKEN" in message and "--config" in message
    monkeypatch.setenv("HF_TOKEN", "hf_not_this_one")
    code, message = run("--hf", "tiny/qwen3-gated", "--hf-endpoint", url)
    assert code == 2 and "HF_TOKEN does not give access to it" in message
    monkeypatch.setenv("HF_TOKEN", "hf_stub_token")
    state.log.clear()
    code, data = run("--hf", "tiny/qwen3-gated", "--hf-endpoint", url)
    assert code == 0, data
    config = str(WEIGHTS / "tiny-qwen3-sharded" / "config.json")
    assert data == run("--config", config, "--weights", str(WEIGHTS / "tiny-qwen3.safetensors"))[1]
    assert all(h.get("Authorization") == "Bearer hf_stub_token" for role, _, h in state.log if role == "hub")
    storage = [h for role, _, h in state.log if role == "storage"]
    assert storage and not any("Authorization" in h for h in storage)


def test_hf_endpoint_comes_from_the_environment_and_the_option_wins(stub, monkeypatch):
    url, state = stub
    monkeypatch.setenv("HF_ENDPOINT", url + "/")
    assert run("--hf", "tiiuae/Falcon3-7B-Instruct")[0] == 0 and state.log
    assert hub.endpoint_of(None, {}) == "https://huggingface.co"
    assert hub.endpoint_of("http://mirror.example:8080/", {"HF_ENDPOINT": url}) == "http://mirror.example:8080"


# ---------------------------------------------------------------- what goes wrong: one line, naming the field


def _one_line(code: int, message: object, start: str) -> None:
    assert code == 2, message
    assert isinstance(message, str) and message.count("\n") == 1 and message.startswith(start), message
    assert "Traceback" not in message


@pytest.mark.parametrize(("hf", "words"), [
    ("tiny/no-such-model", "no repository tiny/no-such-model on http://127.0.0.1:"),
    ("tiny/qwen3-sharded@no-such-branch", "tiny/qwen3-sharded has no revision 'no-such-branch'"),
    ("tiny/sd-pipeline", "a diffusers pipeline (model_index.json), not a language model"),
])
def test_a_missing_repository_or_revision_and_a_repository_of_no_language_model_say_so(stub, hf, words):
    url, _ = stub
    code, message = run("--hf", hf, "--hf-endpoint", url)
    _one_line(code, message, f"vramcalc: error: hf: got '{hf}'; ")
    assert words in str(message)


def test_a_missing_repository_asked_without_a_token_may_be_private(stub):
    url, _ = stub
    assert "(or a private one: set HF_TOKEN to read it)" in str(run("--hf", "a/b", "--hf-endpoint", url)[1])


@pytest.mark.parametrize("hf", ["Qwen3-8B", "Qwen/Qwen3-8B/main", "Qwen/Qwen3-8B@", "-Qwen/Qwen3-8B", "Qwen/Qwen 3",
                                "https://huggingface.co/Qwen/Qwen3-8B", "Qwen/Qwen3--8B", "Qwen/Qwen3-8B@../../x",
                                "a/" + "b" * 100])
def test_a_malformed_id_is_refused_before_any_request(stub, hf):
    url, state = stub
    code, message = run(f"--hf={hf}", "--hf-endpoint", url)
    _one_line(code, message, "vramcalc: error: hf: got ")
    assert not state.log


@given(st.text(max_size=120))
def test_any_text_is_an_id_or_words(text):
    with contextlib.suppress(ValidationError):
        repo, revision = hub.parse_id(text)
        assert repo.count("/") == 1 and revision


def test_an_endpoint_that_refuses_is_said_at_once_with_the_offline_ways():
    started = time.monotonic()
    code, message = run("--hf", "Qwen/Qwen3-8B", "--hf-endpoint", f"http://127.0.0.1:{_refusing_port()}")
    assert time.monotonic() - started < 1
    _one_line(code, message, "vramcalc: error: hf: got 'Qwen/Qwen3-8B'; could not reach http://127.0.0.1:")
    assert "--config and --weights work offline" in str(message)


def test_an_endpoint_that_never_answers_times_out(monkeypatch):
    monkeypatch.setattr(hub, "TIMEOUT", 0.2)
    with socket.socket() as silent:  # listens, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        code, message = run("--hf", "Qwen/Qwen3-8B", "--hf-endpoint", f"http://127.0.0.1:{silent.getsockname()[1]}")
    _one_line(code, message, "vramcalc: error: hf: got 'Qwen/Qwen3-8B'; could not reach")
    assert "timed out" in str(message)


@pytest.mark.parametrize(("args", "start"), [
    (("--hf", "a/b", "--config", "c.json"), "vramcalc: error: hf: got 'a/b'; --hf is the model: leave out --config"),
    (("--hf", "a/b", "--model", "qwen3-8b"), "vramcalc: error: hf: got 'a/b'; --hf is the model: leave out --model"),
    (("--hf", "a/b", "--weights", "x.gguf"), "vramcalc: error: hf: got 'a/b'; --hf is the model: leave out --weights"),
    (("--hf", "a/b", "--params", "7"), "vramcalc: error: hf: got 'a/b'; --hf is the model: leave out --params"),
    (("--hf-file", "x.gguf", "--model", "qwen3-8b"), "vramcalc: error: hf-file: got 'x.gguf'; --hf-file goes with"),
    (("--hf-endpoint", "http://x"), "vramcalc: error: hf-endpoint: got 'http://x'; --hf-endpoint goes with --hf"),
    (("--hf", "a/b", "--hf-endpoint", "ftp://mirror"), "vramcalc: error: hf-endpoint: got 'ftp://mirror'; expected"),
    (("--hf", "a/b", "--hf-endpoint", "http://[mirror"), "vramcalc: error: hf-endpoint: got 'http://[mirror'; expec"),
    (("--hf", "a/b", "--hf-endpoint", "http://mirror:99999"), "vramcalc: error: hf-endpoint: got 'http://mirror:99999"),
])
def test_what_hf_cannot_go_with_is_said(stub, args, start):
    code, message = run(*args)
    _one_line(code, message, start)
    assert not stub[1].log


def test_hf_file_on_a_repository_without_gguf_files_says_so(stub):
    url, _ = stub
    code, message = run("--hf", "tiny/qwen3-sharded", "--hf-endpoint", url, "--hf-file", "Q4_K_M")
    _one_line(code, message, "vramcalc: error: hf-file: got 'Q4_K_M'; tiny/qwen3-sharded holds no GGUF model file")


# ---------------------------------------------------------------- a diffusers pipeline (vramcalc diffusion --hf)


def test_a_diffusers_repository_is_imported_as_its_preset_reading_only_the_counted_configs(stub):
    url, state = stub
    code, data = run("diffusion", "--hf", "tiny/sd-pipeline", "--hf-endpoint", url, "--gpu", "h100-80gb")
    assert code == 0, data
    _, preset = run("diffusion", "--pipeline", "sd1.5", "--gpu", "h100-80gb")
    sha = REPOS["tiny/sd-pipeline"]["sha"]
    assert data | {"pipeline": "sd1.5"} == preset | {"imported_from": f"tiny/sd-pipeline@{sha}",
                                                     "defaults_of": "sd1.5", "ignored": data["ignored"]}
    assert {(i["role"], i["class"]) for i in data["ignored"]} == {
        ("feature_extractor", "CLIPImageProcessor"), ("safety_checker", "StableDiffusionSafetyChecker"),
        ("scheduler", "PNDMScheduler"), ("tokenizer", "CLIPTokenizer")}
    read = sorted(path.rsplit(f"/resolve/{sha}/", 1)[-1] for _, path, _ in state.log if "/resolve/" in path)
    assert read == ["model_index.json", "text_encoder/config.json", "unet/config.json", "vae/config.json"]


@pytest.mark.parametrize(("hf", "words"), [
    ("tiiuae/Falcon3-7B-Instruct", "holds no model_index.json, so no diffusers pipeline (a language model: vramcalc"),
    ("tiny/no-such-model", "no repository tiny/no-such-model on http://127.0.0.1:"),
    ("tiny/sd-pipeline@no-such-branch", "tiny/sd-pipeline has no revision 'no-such-branch'"),
])
def test_a_repository_that_is_no_diffusers_pipeline_says_so(stub, hf, words):
    url, _ = stub
    code, message = run("diffusion", "--hf", hf, "--hf-endpoint", url)
    _one_line(code, message, f"vramcalc: error: hf: got '{hf}'; ")
    assert words in str(message)


@pytest.mark.parametrize(("args", "start"), [
    (("--hf", "a/b", "--pipeline", "sdxl"), "vramcalc: error: hf: got 'a/b'; give one of --pipeline, --folder and"),
    (("--hf", "a/b", "--folder", "."), "vramcalc: error: hf: got 'a/b'; give one of --pipeline, --folder and --hf"),
    (("--hf-endpoint", "http://x"), "vramcalc: error: hf-endpoint: got 'http://x'; --hf-endpoint goes with --hf"),
    (("--hf", "a/b", "--hf-endpoint", "ftp://mirror"), "vramcalc: error: hf-endpoint: got 'ftp://mirror'; expected"),
])
def test_what_the_diffusion_hf_cannot_go_with_is_said(stub, args, start):
    code, message = run("diffusion", *args)
    _one_line(code, message, start)
    assert not stub[1].log
