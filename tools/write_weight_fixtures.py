"""Write the small weight files the header readers are tested on, with the writers people's files come from.

A developer tool, not run by CI. With the `gguf` package (llama.cpp's gguf-py) it writes GGUF files: one
tensor of every ggml type gguf-py knows, and a two-layer llama whose metadata is a real file's keys;
with `safetensors` a two-layer Qwen3 in every dtype safetensors stores, whole and in two shards with
their `model.safetensors.index.json`. For each file it records what gguf-py's own reader
(`GGUFReader`: every tensor's type, shape and byte count) or safetensors' `safe_open` says, in
tests/data/weights/expected.json, which tests/test_weight_files.py holds formats/headers.py to.

Usage: python tools/write_weight_fixtures.py
Needs: pip install gguf safetensors numpy torch
"""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path

import gguf
import numpy as np
import safetensors
import torch
from safetensors.torch import save_file

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "weights"


def gguf_every_type(path: Path) -> None:
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_block_count(1)
    for qtype in gguf.GGMLQuantizationType:
        block, block_bytes = gguf.GGML_QUANT_SIZES[qtype]
        rows, per_row = 3, 2 * max(block, 32)  # two blocks per row
        raw = np.zeros((rows, per_row // block * block_bytes), dtype=np.uint8)
        writer.add_tensor(f"t.{qtype.name.lower()}", raw, raw_dtype=qtype)
    _finish(writer)


def gguf_llama(path: Path) -> None:
    hidden, ffn, heads, kv_heads, vocab, layers = 64, 256, 2, 1, 96, 2
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("tiny llama")
    writer.add_context_length(4096)
    writer.add_embedding_length(hidden)
    writer.add_block_count(layers)
    writer.add_feed_forward_length(ffn)
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv_heads)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_freq_base(500000.0)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_K_M)
    writer.add_tokenizer_model("gpt2")
    writer.add_token_list([f"t{i}" for i in range(vocab)])
    writer.add_token_types([1] * vocab)
    head_dim = hidden // heads

    def quantised(name: str, out: int, inp: int, qtype: gguf.GGMLQuantizationType) -> None:
        block, block_bytes = gguf.GGML_QUANT_SIZES[qtype]
        writer.add_tensor(name, np.zeros((out, inp // block * block_bytes), dtype=np.uint8), raw_dtype=qtype)

    Q4K, Q6K = gguf.GGMLQuantizationType.Q4_K, gguf.GGMLQuantizationType.Q6_K  # rows of 256: ffn_down only
    Q8, Q4 = gguf.GGMLQuantizationType.Q8_0, gguf.GGMLQuantizationType.Q4_0
    quantised("token_embd.weight", vocab, hidden, Q4)
    for i in range(layers):
        p = f"blk.{i}."
        writer.add_tensor(p + "attn_norm.weight", np.ones(hidden, dtype=np.float32))
        quantised(p + "attn_q.weight", heads * head_dim, hidden, Q4)
        quantised(p + "attn_k.weight", kv_heads * head_dim, hidden, Q4)
        quantised(p + "attn_v.weight", kv_heads * head_dim, hidden, Q8)
        quantised(p + "attn_output.weight", hidden, heads * head_dim, Q4)
        writer.add_tensor(p + "ffn_norm.weight", np.ones(hidden, dtype=np.float32))
        quantised(p + "ffn_gate.weight", ffn, hidden, Q4)
        quantised(p + "ffn_up.weight", ffn, hidden, Q4)
        quantised(p + "ffn_down.weight", hidden, ffn, Q4K if i == 0 else Q6K)
    writer.add_tensor("output_norm.weight", np.ones(hidden, dtype=np.float32))
    quantised("output.weight", vocab, hidden, Q8)
    _finish(writer)


def _finish(writer: gguf.GGUFWriter) -> None:
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def gguf_expected(path: Path) -> dict:
    reader = gguf.GGUFReader(str(path))
    tensors = {t.name: {"type": t.tensor_type.name.lower(), "shape": [int(d) for d in reversed(t.shape)],
                        "nbytes": int(t.n_bytes)} for t in reader.tensors}
    return {"tensors": tensors, "data_offset": int(reader.data_offset)}


QWEN3: dict[str, object] = {"model_type": "qwen3", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
         "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 32, "vocab_size": 96,
         "tie_word_embeddings": False, "max_position_embeddings": 4096}
DTYPES = [torch.bfloat16, torch.float16, torch.float32, torch.float8_e4m3fn, torch.float8_e5m2, torch.uint8,
          torch.int32, torch.int8, torch.float64, torch.int64, torch.bool]


def qwen3_tensors() -> dict[str, torch.Tensor]:
    c = {k: v for k, v in QWEN3.items() if isinstance(v, int)}
    h, f, a, kv, d, v = (c["hidden_size"], c["intermediate_size"], c["num_attention_heads"],
                         c["num_key_value_heads"], c["head_dim"], c["vocab_size"])
    shapes = {"model.embed_tokens.weight": (v, h), "model.norm.weight": (h,), "lm_head.weight": (v, h)}
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        shapes |= {p + "input_layernorm.weight": (h,), p + "post_attention_layernorm.weight": (h,),
                   p + "self_attn.q_proj.weight": (a * d, h), p + "self_attn.k_proj.weight": (kv * d, h),
                   p + "self_attn.v_proj.weight": (kv * d, h), p + "self_attn.o_proj.weight": (h, a * d),
                   p + "self_attn.q_norm.weight": (d,), p + "self_attn.k_norm.weight": (d,),
                   p + "mlp.gate_proj.weight": (f, h), p + "mlp.up_proj.weight": (f, h),
                   p + "mlp.down_proj.weight": (h, f)}
    # every dtype once, in turn; the rest bf16
    return {name: torch.zeros(shape, dtype=DTYPES[i] if i < len(DTYPES) else torch.bfloat16)
            for i, (name, shape) in enumerate(sorted(shapes.items()))}


def safetensors_expected(paths: list[Path]) -> dict:
    tensors = {}
    for path in paths:
        with safetensors.safe_open(str(path), "pt") as handle:
            for name in handle.keys():  # noqa: SIM118 (safe_open has no __iter__)
                t = handle.get_slice(name)
                tensors[name] = {"dtype": t.get_dtype(), "shape": list(t.get_shape())}
    return {"tensors": tensors}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    versions = (f"gguf {importlib.metadata.version('gguf')}, safetensors {safetensors.__version__}, "
                f"torch {torch.__version__}")
    expected: dict[str, object] = {"_about": f"tools/write_weight_fixtures.py; {versions}"}
    gguf_every_type(OUT / "every-type.gguf")
    expected["every-type.gguf"] = gguf_expected(OUT / "every-type.gguf")
    gguf_llama(OUT / "tiny-llama-q4_k_m.gguf")
    expected["tiny-llama-q4_k_m.gguf"] = gguf_expected(OUT / "tiny-llama-q4_k_m.gguf")
    tensors = qwen3_tensors()
    save_file(tensors, str(OUT / "tiny-qwen3.safetensors"), metadata={"format": "pt"})
    expected["tiny-qwen3.safetensors"] = safetensors_expected([OUT / "tiny-qwen3.safetensors"])
    names = sorted(tensors)
    shards = {"model-00001-of-00002.safetensors": names[: len(names) // 2],
              "model-00002-of-00002.safetensors": names[len(names) // 2:]}
    folder = OUT / "tiny-qwen3-sharded"
    folder.mkdir(exist_ok=True)
    weight_map: dict[str, str] = {}
    for shard, members in shards.items():
        save_file({n: tensors[n] for n in members}, str(folder / shard), metadata={"format": "pt"})
        weight_map |= dict.fromkeys(members, shard)
    total = sum(t.numel() * t.element_size() for t in tensors.values())
    (folder / "model.safetensors.index.json").write_text(json.dumps(
        {"metadata": {"total_size": total}, "weight_map": weight_map}, indent=2) + "\n")
    (folder / "config.json").write_text(json.dumps(QWEN3, indent=2) + "\n")
    expected["tiny-qwen3-sharded"] = safetensors_expected([folder / s for s in shards]) | {"total_size": total}
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main()
