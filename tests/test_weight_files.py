"""Weight files read from their headers: GGUF and safetensors files written by gguf-py and safetensors
(tools/write_weight_fixtures.py), held to what those packages' own readers say of them
(tests/data/weights/expected.json), and what a bad or cut file gets."""

from __future__ import annotations

import contextlib
import io
import json
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vramcalc.core.errors import ValidationError
from vramcalc.formats.headers import Header, Truncated, read_header, read_safetensors_index

DATA = Path(__file__).parent / "data" / "weights"
EXPECTED = json.loads((DATA / "expected.json").read_text(encoding="utf-8"))


def read_progressively(path: Path, first: int = 16) -> tuple[Header, int]:
    """As the command line and the page read: a prefix, then as much as the reader asks for."""
    raw = path.read_bytes()
    size = first
    while True:
        try:
            return read_header(raw[:size], path.name), size
        except Truncated as more:
            assert more.needed > size
            size = more.needed


@pytest.mark.parametrize("name", ["every-type.gguf", "tiny-llama-q4_k_m.gguf"])
def test_gguf_tensors_are_what_gguf_py_reads(name):
    header, read = read_progressively(DATA / name)
    expected = EXPECTED[name]["tensors"]
    assert {t.name: {"type": t.dtype, "shape": list(t.shape), "nbytes": t.nbytes} for t in header.tensors} == expected
    assert header.header_bytes == EXPECTED[name]["data_offset"]
    assert read < 4 * header.header_bytes  # the header, not the data


def test_every_ggml_type_gguf_py_knows_is_read():
    header, _ = read_progressively(DATA / "every-type.gguf")
    assert len(header.tensors) == len(EXPECTED["every-type.gguf"]["tensors"]) >= 30


def test_a_gguf_files_weights_are_the_sum_of_its_tensors_and_the_file_is_that_plus_header_and_padding():
    path = DATA / "tiny-llama-q4_k_m.gguf"
    header, _ = read_progressively(path)
    padding = sum(-t.nbytes % 32 for t in header.tensors[:-1])
    assert header.header_bytes + header.nbytes + padding == path.stat().st_size
    assert header.metadata["general.architecture"] == "llama"
    assert header.metadata["tokenizer.ggml.tokens"]["length"] == 96


def test_safetensors_tensors_are_what_safe_open_reads_and_every_byte_is_counted():
    path = DATA / "tiny-qwen3.safetensors"
    header, _ = read_progressively(path)
    expected = EXPECTED["tiny-qwen3.safetensors"]["tensors"]
    assert {t.name: {"dtype": t.dtype, "shape": list(t.shape)} for t in header.tensors} == expected
    assert {t.dtype for t in header.tensors} >= {"BF16", "F16", "F32", "F8_E4M3", "F8_E5M2", "U8", "I32", "I8",
                                                  "F64", "I64", "BOOL"}
    assert header.header_bytes + header.nbytes == path.stat().st_size


def test_shards_sum_to_the_indexs_total_size():
    folder = DATA / "tiny-qwen3-sharded"
    total, weight_map = read_safetensors_index((folder / "model.safetensors.index.json").read_text())
    headers = [read_progressively(folder / shard)[0] for shard in sorted(set(weight_map.values()))]
    assert sum(h.nbytes for h in headers) == total == EXPECTED["tiny-qwen3-sharded"]["total_size"]
    assert {t.name for h in headers for t in h.tensors} == set(weight_map)


BAD_OFFSETS = json.dumps({"w": {"dtype": "BF16", "shape": [4], "data_offsets": [0, 7]}}).encode()


@pytest.mark.parametrize(("data", "words"), [
    (b"GGUF" + struct.pack("<I", 7) + bytes(16), "versions 2 and 3"),
    (b"GGUF" + struct.pack("<IQQ", 3, 10**9, 0), "more tensors"),
    (struct.pack("<Q", 10) + b"not json!!", "not JSON"),
    (struct.pack("<Q", 2**40) + bytes(8), "not a safetensors file"),
    (struct.pack("<Q", 2) + b"[]", "not a JSON object"),
    (struct.pack("<Q", len(BAD_OFFSETS)) + BAD_OFFSETS, "takes 8 bytes"),
])
def test_a_bad_header_gets_words_naming_the_weights_field(data, words):
    with pytest.raises(ValidationError) as caught:
        read_header(data)
    assert caught.value.field == "weights" and words in str(caught.value)


def test_a_cut_gguf_asks_for_more_rather_than_guessing():
    raw = (DATA / "tiny-llama-q4_k_m.gguf").read_bytes()
    with pytest.raises(Truncated):
        read_header(raw[:1000])


@settings(max_examples=300, deadline=1000)
@given(st.binary(max_size=400), st.sampled_from([b"", b"GGUF", b"GGUF\x03\x00\x00\x00"]))
def test_any_bytes_get_a_header_more_bytes_asked_or_words_never_a_traceback(data, prefix):
    with contextlib.suppress(Truncated, ValidationError):
        read_header(prefix + data)


# ---------------------------------------------------------------- the weights of a file, in an answer


def answer(*args):
    from vramcalc.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*args, "--json"])
    return code, (json.loads(out.getvalue()) if code == 0 else err.getvalue())


def _bytes(name, prefix=""):
    return sum(t["nbytes"] for n, t in EXPECTED[name]["tensors"].items() if n.startswith(prefix))


def test_a_gguf_alone_is_its_model_and_its_weights_are_its_tensors_bytes():
    code, data = answer("--weights", str(DATA / "tiny-llama-q4_k_m.gguf"))
    assert code == 0, data
    assert data["runtime"]["name"] == "llamacpp"  # a GGUF runs on llama.cpp unless Ollama is asked
    # on the GPU: every tensor but the token embeddings, which llama.cpp keeps in system RAM
    assert data["components"]["weights"] == _bytes("tiny-llama-q4_k_m.gguf") - _bytes("tiny-llama-q4_k_m.gguf",
                                                                                        "token_embd")
    assert data["assumptions"] == []


def test_the_gguf_metadata_reads_as_the_config_it_stands_for():
    from vramcalc.formats.headers import read_header
    from vramcalc.sources.hf_config import from_hf_config
    from vramcalc.sources.weight_file import spec_from_gguf

    header = read_header((DATA / "tiny-llama-q4_k_m.gguf").read_bytes())
    spec = spec_from_gguf(header, "tiny")
    same = from_hf_config({"model_type": "llama", "hidden_size": 64, "intermediate_size": 256,
                           "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
                           "vocab_size": 96, "max_position_embeddings": 4096, "tie_word_embeddings": False})
    assert (spec.layers, spec.hidden, spec.heads, spec.kv_heads, spec.vocab, spec.ffn, spec.tie_embeddings) == (
        same.layers, same.hidden, same.heads, same.kv_heads, same.vocab, same.ffn, same.tie_embeddings)
    assert spec.display_name == "tiny llama"


def test_llamacpp_places_the_files_own_layer_bytes():
    # --gpu-layers 1 offloads the output layer only (llama.cpp's order): output.weight and output_norm
    code, data = answer("--weights", str(DATA / "tiny-llama-q4_k_m.gguf"), "--gpu-layers", "2")
    assert code == 0, data
    on_gpu = _bytes("tiny-llama-q4_k_m.gguf", "output") + _bytes("tiny-llama-q4_k_m.gguf", "blk.1.")
    weights_host = _bytes("tiny-llama-q4_k_m.gguf") - on_gpu
    runtime = data["runtime"]
    assert data["host_bytes"] == weights_host + runtime["kv_host_bytes"] + runtime["host_compute_buffer_bytes"]


def test_a_sharded_safetensors_folder_is_its_config_and_its_shards():
    code, data = answer("--weights", str(DATA / "tiny-qwen3-sharded"))
    assert code == 0, data
    assert data["components"]["weights"] == EXPECTED["tiny-qwen3-sharded"]["total_size"]
    assert data["assumptions"] == []


def test_a_file_that_does_not_match_the_model_says_so_in_each_language():
    from vramcalc import estimate, parse_workload
    from vramcalc.cli import read_weights
    from vramcalc.render.messages import Words

    code, data = answer("--weights", str(DATA / "tiny-qwen3.safetensors"), "--model", "qwen3-8b")
    assert code == 0, data
    assert "the weight file does not match the architecture: layer 2 has no tensors in the file" in data["assumptions"]
    assert data["assumptions"][-1].endswith("and 29 more")  # 34 missing layers: five named, the rest counted
    said = estimate(parse_workload({"model": "qwen3-8b"}, weights=read_weights(str(DATA / "tiny-qwen3.safetensors"))))
    assert Words("pt").say(said.assumptions[0]) == ("o arquivo de pesos não corresponde à arquitetura: a camada 2 "
                                                    "não tem tensores no arquivo")


def test_a_folder_of_several_gguf_files_asks_which(tmp_path):
    for name in ("model-Q4_K_M.gguf", "model-Q8_0.gguf"):
        (tmp_path / name).write_bytes((DATA / "tiny-llama-q4_k_m.gguf").read_bytes())
    code, message = answer("--weights", str(tmp_path))
    assert code != 0 and "the folder holds 2 GGUF files" in message


@pytest.mark.parametrize(("args", "words"), [
    (("--weights", str(DATA / "tiny-qwen3.safetensors")), "does not say its architecture"),
    (("--weights", str(DATA / "tiny-llama-q4_k_m.gguf"), "--precision", "q8_0"), "leave precision out"),
    (("--weights", str(DATA / "tiny-llama-q4_k_m.gguf"), "--mode", "training"),
     "GGUF files are for llama.cpp inference"),
    (("--weights", str(DATA / "no-such-file.gguf")), "cannot read the file"),
])
def test_what_a_weight_file_cannot_answer_gets_words(args, words):
    code, message = answer(*args)
    assert code != 0 and words in message, message


@pytest.mark.parametrize("make", ["empty-index", "zero-parts"])
def test_weights_that_name_no_file_get_words(make, tmp_path):
    """An index whose weight_map is empty, or a split GGUF named as part 0 of 0: no file to read (before: an
    IndexError traceback)."""
    if make == "empty-index":
        (tmp_path / "model.safetensors.index.json").write_text('{"metadata": {"total_size": 0}, "weight_map": {}}')
        path = tmp_path
    else:
        path = tmp_path / "model-00000-of-00000.gguf"
        path.write_bytes((DATA / "tiny-llama-q4_k_m.gguf").read_bytes())
    code, message = answer("--weights", str(path))
    assert code == 2 and message.startswith("vramcalc: error: weights:"), message


def with_metadata_string(gguf: bytes, key: str, text: str) -> bytes:
    """The GGUF with one more string key-value pair, written first (its header grows by the pair)."""
    version, n_tensors, n_keys = struct.unpack_from("<IQQ", gguf, 4)
    pair = struct.pack("<Q", len(key)) + key.encode() + struct.pack("<IQ", 8, len(text)) + text.encode()
    return b"GGUF" + struct.pack("<IQQ", version, n_tensors, n_keys + 1) + pair + gguf[24:]


def test_a_gguf_whose_header_is_most_of_the_file_is_read(tmp_path):
    """A header over the first read (1 MB: a large tokenizer) and less data than header, as a vocabulary-only GGUF
    or a small model with a large vocabulary has: the header fits in the file (before: "the file ends inside its
    header", the reader having asked for twice what it had)."""
    path = tmp_path / "big-vocab.gguf"
    path.write_bytes(with_metadata_string((DATA / "tiny-llama-q4_k_m.gguf").read_bytes(), "x.pad", "t" * 1_500_000))
    code, data = answer("--weights", str(path))
    assert code == 0, data
    assert data["components"]["weights"] == _bytes("tiny-llama-q4_k_m.gguf") - _bytes("tiny-llama-q4_k_m.gguf",
                                                                                        "token_embd")


def _gguf(n_tensors: int, n_keys: int, body: bytes) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", 3, n_tensors, n_keys) + body


def _key(name: str, kind: int) -> bytes:
    return struct.pack("<Q", len(name)) + name.encode() + struct.pack("<I", kind)


def _strings(name: str, n: int) -> bytes:
    """A key whose value is an array of n empty strings."""
    return _key(name, 9) + struct.pack("<IQ", 8, n) + bytes(8 * n)


@pytest.mark.parametrize("make", [
    lambda: _gguf(0, 1, _strings("tokenizer.ggml.tokens", 4_000_000)),  # 32 MB of empty strings
    lambda: _gguf(0, 8, b"".join(_strings(f"k{i}", 250_000) for i in range(8))),  # half as many, over 8 arrays
    lambda: _gguf(0, 1_000_000, b"".join(_key(f"k{i}", 4) + struct.pack("<I", i) for i in range(1_000_000))),
    lambda: _gguf(1_000_000, 0, (struct.pack("<Q", 4) + b"tttt" + struct.pack("<IQIQ", 1, 32, 0, 0)) * 1_000_000),
], ids=["strings", "arrays", "keys", "tensors"])
def test_a_header_of_millions_of_items_is_answered_within_a_second(make):
    """Within MAX_HEADER_BYTES but beyond any real file (a tokenizer holds some 300,000 strings, a GGUF a few thousand
    tensors and tens of keys): before, 2 to 25 s walking them one by one."""
    import time

    data = make()
    start = time.perf_counter()
    with contextlib.suppress(ValidationError):
        read_header(data)
    assert time.perf_counter() - start < 1.0


def test_a_safetensors_header_of_more_tensors_than_any_file_is_refused_in_words():
    entry = {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}
    text = json.dumps({f"t{i}": entry for i in range(100_001)}).encode()
    with pytest.raises(ValidationError, match="100,001 tensors"):
        read_header(struct.pack("<Q", len(text)) + text)


@pytest.mark.parametrize("data", [
    _gguf(1, 0, struct.pack("<Q", 4) + b"huge" + struct.pack("<IQQIQ", 2, 2**62, 2**62, 1, 0)),  # f16, 2^124 values
    (lambda text: struct.pack("<Q", len(text)) + text)(json.dumps(
        {"huge": {"dtype": "BF16", "shape": [2**40, 2**40], "data_offsets": [0, 2**81]}}).encode()),
], ids=["gguf", "safetensors"])
def test_a_tensor_larger_than_any_file_is_refused_in_words(data):
    """Before: read, and answered as 39,614,081,257,132,168,796,771,975,168 GiB of weights."""
    with pytest.raises(ValidationError, match="larger than any real weight file"):
        read_header(data)


def _u32(name: str, value: int) -> bytes:
    return _key(name, 4) + struct.pack("<I", value)


def _arch(arch: str, *pairs: bytes) -> bytes:
    """A GGUF of one tensor (the embedding table) and `arch`'s sizes, then `pairs`."""
    keys = [_key("general.architecture", 8) + struct.pack("<Q", len(arch)) + arch.encode(),
            _u32(f"{arch}.block_count", 2), _u32(f"{arch}.embedding_length", 64),
            _u32(f"{arch}.feed_forward_length", 128), *pairs]
    embedding = struct.pack("<Q", 17) + b"token_embd.weight" + struct.pack("<IQQIQ", 2, 64, 1000, 1, 0)
    return _gguf(1, len(keys), b"".join(keys) + embedding)


@pytest.mark.parametrize("arch", ["qwen2", "qwen3", "mistral", "gemma", "llama"])
def test_a_gguf_without_head_count_kv_has_as_many_kv_heads_as_heads(arch):
    """llama.cpp's rule (llama-model.cpp: n_head_kv defaults to n_head); before, the transformers class default:
    32 for qwen2 and qwen3, 8 for mistral, 16 for gemma, refused or a wrong KV cache."""
    from vramcalc.sources.weight_file import spec_from_gguf

    spec = spec_from_gguf(read_header(_arch(arch, _u32(f"{arch}.attention.head_count", 4))), "x.gguf")
    assert (spec.heads, spec.kv_heads) == (4, 4)


@pytest.mark.parametrize(("pairs", "words"), [
    ([_key("llama.attention.head_count", 6) + struct.pack("<f", 4.0)], "llama.attention.head_count"),
    ([_key("llama.context_length", 8) + struct.pack("<Q", 3) + b"two"], "llama.context_length"),
    ([_u32("llama.attention.head_count", 4), _u32("llama.attention.head_count", 8)], "twice"),
], ids=["float", "string", "twice"])
def test_gguf_metadata_of_the_wrong_kind_or_given_twice_is_refused_naming_it(pairs, words):
    """Before: a float head count or a string context length were dropped silently (the class default's 32 heads),
    a key given twice read as its last value; llama.cpp refuses a key given twice (gguf.cpp: duplicate key)."""
    from vramcalc.sources.weight_file import spec_from_gguf

    with pytest.raises(ValidationError, match=words) as refused:
        spec_from_gguf(read_header(_arch("llama", *pairs)), "x.gguf")
    assert refused.value.field == "weights"


def test_the_same_tensors_in_two_files_are_refused_naming_one(tmp_path):
    """A folder of shards beside the consolidated file they were cut from (no index): before, every weight was
    counted twice and the answer said nothing; llama-model-loader.cpp refuses a tensor "duplicated" across files."""
    shards = DATA / "tiny-qwen3-sharded"
    for name in ("config.json", "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"):
        (tmp_path / name).write_bytes((shards / name).read_bytes())
    (tmp_path / "consolidated.safetensors").write_bytes((DATA / "tiny-qwen3.safetensors").read_bytes())
    code, message = answer("--weights", str(tmp_path))
    assert code == 2 and message.startswith("vramcalc: error: weights:") and "in the files twice" in message, message


def test_a_projector_alone_is_refused_as_no_language_model(tmp_path):
    """An mmproj GGUF (general.architecture 'clip') given as the model's weights: before, alone it was refused
    as a config.json without hidden_size, and beside --model its v.blk.N tensors were laid onto the text layers."""
    path = tmp_path / "mmproj-model-f16.gguf"
    path.write_bytes(_arch("clip"))
    for extra in ((), ("--model", "gemma-3-4b-it")):
        code, message = answer("--weights", str(path), *extra)
        assert code == 2 and message.startswith("vramcalc: error: weights:") and "projector" in message, message


def test_gguf_and_safetensors_files_together_are_refused():
    """The page's file picker given a model's GGUF and its safetensors: before, both files' tensors were summed (their
    names differ) under the first file's kind, the weights counted about twice."""
    from vramcalc.formats.file_weights import WeightsGiven

    headers = tuple(read_progressively(DATA / name)[0] for name in ("tiny-llama-q4_k_m.gguf", "tiny-qwen3.safetensors"))
    with pytest.raises(ValidationError, match="GGUF and safetensors") as refused:
        WeightsGiven(name="x", headers=headers)
    assert refused.value.field == "weights"


@pytest.mark.parametrize(("names", "words"), [
    (("m-00001-of-00003.gguf", "m-00003-of-00003.gguf"), "m-00002-of-00003.gguf"),
    (("a-00001-of-00002.gguf", "a-00002-of-00002.gguf", "b-00001-of-00002.gguf", "b-00002-of-00002.gguf"),
     "2 split models"),
    (("model-00001-of-00002.safetensors", "config.json"), "model-00002-of-00002.safetensors"),
], ids=["gguf-part-missing", "two-split-gguf-models", "safetensors-shard-missing"])
def test_a_folder_of_split_parts_must_hold_every_part_of_one_model(names, words, tmp_path):
    """Before: the parts found were summed (a split GGUF missing its middle part read as a whole model, two split
    models as one), while naming a part of the same files asked for the missing one."""
    shards = DATA / "tiny-qwen3-sharded"
    for name in names:
        source = shards / name if not name.endswith(".gguf") else DATA / "tiny-llama-q4_k_m.gguf"
        (tmp_path / name).write_bytes(source.read_bytes())
    code, message = answer("--weights", str(tmp_path))
    assert code == 2 and message.startswith("vramcalc: error: weights:") and words in message, message


def test_a_folder_of_a_gguf_and_its_projector_reads_the_model(tmp_path):
    """llama.cpp's vision models ship an mmproj GGUF beside the model's: the folder is that model, as a Hub
    repository is (hub.gguf_files leaves projectors out); before, the folder was refused as two GGUF files."""
    (tmp_path / "model-Q4_K_M.gguf").write_bytes((DATA / "tiny-llama-q4_k_m.gguf").read_bytes())
    (tmp_path / "mmproj-model-f16.gguf").write_bytes(_arch("clip"))
    code, data = answer("--weights", str(tmp_path))
    assert code == 0, data
    assert data["components"]["weights"] == answer("--weights", str(DATA / "tiny-llama-q4_k_m.gguf"))[1][
        "components"]["weights"]


@pytest.mark.parametrize("shard", ["/dev/stdin", "../outside.safetensors", "sub/../../outside.safetensors",
                                   "..\\outside.safetensors", ""])
def test_an_index_naming_a_shard_outside_its_folder_is_refused(shard, tmp_path):
    """An index is untrusted (a downloaded repository's): before, its weight_map sent the reader to any path, a file
    outside the folder read as a shard, /dev/stdin waited for input with no bound; and --hf put such a name into
    the Hub's URL. A shard is a file beside its index, as transformers' index always names them."""
    index = json.dumps({"metadata": {"total_size": 0}, "weight_map": {"model.embed_tokens.weight": shard}})
    with pytest.raises(ValidationError, match="a file beside the index") as refused:
        read_safetensors_index(index)
    assert refused.value.field == "weights"
    folder = tmp_path / "model"
    folder.mkdir()
    (tmp_path / "outside.safetensors").write_bytes((DATA / "tiny-qwen3.safetensors").read_bytes())
    (folder / "model.safetensors.index.json").write_text(index)
    (folder / "config.json").write_bytes((DATA / "tiny-qwen3-sharded" / "config.json").read_bytes())
    if shard != "/dev/stdin":
        code, message = answer("--weights", str(folder))
        assert code == 2 and "a file beside the index" in message, message


def test_a_weight_file_that_is_no_regular_file_is_refused_at_once(tmp_path):
    """A named pipe among a folder's weight files (an unpacked archive can hold one): before, reading it waited for a
    writer without bound. Only a regular file is read."""
    import os
    import subprocess
    import sys

    os.mkfifo(tmp_path / "model.safetensors")
    (tmp_path / "config.json").write_bytes((DATA / "tiny-qwen3-sharded" / "config.json").read_bytes())
    app = Path(__file__).parent.parent / "app"
    done = subprocess.run([sys.executable, "-m", "vramcalc", "--weights", str(tmp_path)], capture_output=True,
                          text=True, timeout=20, env={**os.environ, "PYTHONPATH": str(app)}, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "not a regular file" in done.stderr, done.stderr


def _adapter() -> bytes:
    """peft's adapter_model.safetensors, one LoRA matrix (written by hand: an 8-byte length, the JSON, the data)."""
    header = json.dumps({"base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight":
                         {"dtype": "F32", "shape": [2, 4], "data_offsets": [0, 32]}}).encode()
    return struct.pack("<Q", len(header)) + header + bytes(32)


def test_a_peft_adapter_beside_the_shards_is_no_part_of_the_model(tmp_path):
    """A fine-tuned folder without an index keeps peft's adapter beside the shards: before, it was summed into the
    weights (an index names the shards alone, so the same folder with one did not count it); alone it is refused."""
    shards = DATA / "tiny-qwen3-sharded"
    for name in ("config.json", "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"):
        (tmp_path / name).write_bytes((shards / name).read_bytes())
    (tmp_path / "adapter_model.safetensors").write_bytes(_adapter())
    code, data = answer("--weights", str(tmp_path))
    assert code == 0, data
    assert data["components"]["weights"] == EXPECTED["tiny-qwen3-sharded"]["total_size"]
    alone = tmp_path / "adapter"
    alone.mkdir()
    (alone / "adapter_model.safetensors").write_bytes(_adapter())
    code, message = answer("--weights", str(alone))
    assert code == 2 and "LoRA adapter" in message, message


@pytest.mark.parametrize("heads", [0, 3])
def test_gguf_metadata_out_of_range_is_refused_naming_the_files_key(heads):
    """Before: "num_attention_heads: got 0", the config key the metadata stands for, not a key the file has."""
    from vramcalc.sources.weight_file import spec_from_gguf

    with pytest.raises(ValidationError) as refused:
        spec_from_gguf(read_header(_arch("llama", _u32("llama.attention.head_count", heads))), "x.gguf")
    assert refused.value.field == "weights" and f"llama.attention.head_count = {heads}" in str(refused.value)
