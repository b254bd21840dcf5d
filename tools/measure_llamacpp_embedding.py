"""ModernBERT, nomic-bert and JinaBERT v2 under llama.cpp's `--embedding`: the CPU compute buffer to the byte
(tests/golden/llamacpp_embedding.json, kinds "modernbert", "nomic-bert", "jina-bert-v2"; docs/accuracy.md,
"llama.cpp's `--embedding` compute buffer, measured").

The llama.cpp tree: 0c1e57098 (vendored in llama-cpp-python 0.3.36), two local edits, then a CPU build:
  - src/llama-context.cpp, `sched_reserve`: the "compute buffer size = %8.2f MiB" line also prints
    `(%zu B)` with `(size_t) backend_buf_exp_size[i]`;
  - ggml/src/ggml-alloc.c: `#define GGML_ALLOCATOR_DEBUG` (its `max_size[..]` lines at -lv 5 list the tensors live
    at each new peak; the bytes are the same without it).
  cmake -B build -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DLLAMA_CURL=OFF && cmake --build build -j2
      --target llama-server

Then, with a Python that has torch, transformers 5.23 and the tree's gguf-py (/work/mvenv):
  python tools/measure_llamacpp_embedding.py make DIR            # random-weight fp16 models in DIR/hf
  python tools/measure_llamacpp_embedding.py convert DIR TREE    # DIR/gguf/NAME-f16.gguf (and mb-small Q8_0)
  python tools/measure_llamacpp_embedding.py grid DIR TREE OUT [PREFIX...]   # one JSON line a llama-server run

`convert` runs the tree's convert_hf_to_gguf.py with two replacements: ModernBertModel.set_vocab takes the
tokenizer of the tree's own models/ggml-vocab-gpt-2.gguf (the models have no tokenizer files; their vocab_size is
its 50,257 tokens), and attention.layer_norm_epsilon is written (that converter writes norm_eps as an RMS epsilon,
which modern-bert.cpp does not read). `grid` starts llama-server --embedding (--reranking for the classifier) at
each grid point and reads the bytes of its "CPU compute buffer size" line.

nomic-bert (nb-*) and JinaBERT v2 (jb-*) have no transformers class: `make` writes their config.json and a
safetensors file of random fp16 tensors under the checkpoints' own names (nomic-embed-text-v1.5's
`modeling_hf_nomic_bert.py` layout: emb_ln, encoder.layers.N.attn.Wqkv, out_proj, norm1, mlp.fc11/fc12/fc2, norm2;
jina-embeddings-v2's: BERT's embeddings and attention, encoder.layer.N.mlp.gated_layers (h -> 2·I, the GEGLU's up
and gate in one), mlp.wo, mlp.layernorm; jina-embeddings-v2-base-code's: attention.self.layer_norm_q/k,
layer_norm_1, mlp.up_gated_layer, mlp.down_layer, layer_norm_2), the names convert_hf_to_gguf.py's tensor map reads.
`convert` replaces, for both, the converters' set_vocab by the tokenizer of models/ggml-vocab-bert-bge.gguf
(30,522 tokens, 2 token types: the word embeddings have that many rows), and NomicBertModel's
_is_tokenizer_xlmroberta (it opens tokenizer.json) by False, the WordPiece answer nomic-embed-text-v1.5's gives.
The nomic configs also carry transformers 5.23's NomicBertConfig keys (hidden_size, num_hidden_layers, ...): the
converter reads config.json through AutoConfig, which now knows nomic_bert, and its find_hparam prefers those keys,
whose defaults are nomic-embed-text-v1.5's sizes (so that checkpoint converts right; a tiny one would not)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

VOCAB = 50257  # models/ggml-vocab-gpt-2.gguf
# name: hidden, heads, intermediate (n_ff: Wi is 2x), layers, local_attention, pooling (None: a classifier)
MODELS: dict[str, tuple[int, int, int, int, int, str | None]] = {
    "mb-small": (128, 4, 256, 4, 128, "cls_token"), "mb-mean": (192, 3, 600, 4, 64, "mean_tokens"),
    "mb-wide": (768, 12, 1152, 4, 128, "cls_token"), "mb-rerank": (128, 4, 256, 4, 128, None),
    # 3 layers: only layer 0 is global (global_attn_every_n_layers 3), so its mask is freed after it
    "mb-mean3": (192, 3, 600, 3, 64, "mean_tokens"), "mb-wide3": (768, 12, 1152, 3, 128, "cls_token")}
# name: hidden, heads, intermediate, layers, pooling; jb-code is jina-bert-v2-qk-post-norm (v2-base-code's layout)
NOMIC: dict[str, tuple[int, int, int, int, str]] = {
    "nb-small": (128, 4, 512, 2, "cls_token"), "nb-mean": (192, 3, 600, 3, "mean_tokens"),
    "nb-wide": (768, 12, 3072, 2, "mean_tokens"),  # nomic-embed-text-v1.5's width
    "nb-narrow": (256, 4, 128, 2, "cls_token")}  # an FFN below h: attention's moment is the peak
JINA: dict[str, tuple[int, int, int, int, str]] = {
    "jb-small": (128, 4, 512, 2, "cls_token"), "jb-mean": (192, 3, 500, 3, "mean_tokens"),
    "jb-wide": (768, 12, 3072, 2, "mean_tokens"), "jb-code": (128, 4, 512, 2, "mean_tokens"),
    "jb-narrow": (256, 4, 128, 2, "cls_token")}
BERT_VOCAB, TYPES = 30522, 2  # models/ggml-vocab-bert-bge.gguf: its tokens and tokenizer.ggml.token_type_count
# (n_ubatch = n_batch, slots, flash attention, context): the grid of the BERT/XLM-R/Qwen3 measurement
GRID = [(512, 4, "off", 8192), (512, 4, "on", 8192), (128, 1, "off", 8192), (128, 1, "on", 8192),
        (2048, 16, "off", 8192), (2048, 16, "on", 8192), (1024, 4, "off", 300), (1024, 4, "on", 300),
        (256, 2, "auto", 4096)]
BYTES = re.compile(r"CPU +compute buffer size = +[\d.]+ MiB \((\d+) B\)")
CONTEXT = re.compile(r"llama_context: (n_seq_max|n_ctx|n_batch|n_ubatch|flash_attn) += (\S+)")


def make(out: Path) -> None:
    import torch
    from transformers import ModernBertConfig, ModernBertForSequenceClassification, ModernBertModel

    torch.manual_seed(0)
    ids = {"vocab_size": VOCAB, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2, "cls_token_id": 1,
           "sep_token_id": 2, "max_position_embeddings": 8192}
    for name, (h, heads, ffn, layers, local, pooling) in MODELS.items():
        config = ModernBertConfig(hidden_size=h, num_attention_heads=heads, intermediate_size=ffn,
                                  num_hidden_layers=layers, global_attn_every_n_layers=3, local_attention=local,
                                  num_labels=1, **ids)
        model = ModernBertModel(config) if pooling else ModernBertForSequenceClassification(config)
        folder = out / "hf" / name
        model.to(torch.float16).save_pretrained(folder)
        if pooling:
            _pooling(folder, pooling)


def _pooling(folder: Path, pooling: str) -> None:
    """sentence-transformers' modules.json and pooling config, which the converter reads."""
    (folder / "1_Pooling").mkdir(parents=True, exist_ok=True)
    (folder / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]))
    (folder / "1_Pooling" / "config.json").write_text(json.dumps({f"pooling_mode_{pooling}": True}))


def make_remote(out: Path) -> None:
    """nomic-bert and JinaBERT v2: config.json and random fp16 tensors under the checkpoints' names."""
    import torch
    from safetensors.torch import save_file

    torch.manual_seed(0)

    def norm(name: str, h: int) -> dict[str, Any]:
        return {f"{name}.weight": torch.ones(h), f"{name}.bias": torch.zeros(h)}

    def save(name: str, config: dict[str, Any], tensors: dict[str, Any], pooling: str) -> None:
        folder = out / "hf" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "config.json").write_text(json.dumps(config, indent=1))
        save_file({k: (v if v.dim() == 1 else v * 0.02).to(torch.float16).contiguous() for k, v in tensors.items()},
                  str(folder / "model.safetensors"))
        _pooling(folder, pooling)

    for name, (h, heads, ffn, layers, pooling) in NOMIC.items():
        tensors = {"embeddings.word_embeddings.weight": torch.randn(BERT_VOCAB, h),
                   "embeddings.token_type_embeddings.weight": torch.randn(TYPES, h), **norm("emb_ln", h)}
        for i in range(layers):
            at = f"encoder.layers.{i}."
            tensors |= {at + "attn.Wqkv.weight": torch.randn(3 * h, h), at + "attn.out_proj.weight": torch.randn(h, h),
                        at + "mlp.fc11.weight": torch.randn(ffn, h), at + "mlp.fc12.weight": torch.randn(ffn, h),
                        at + "mlp.fc2.weight": torch.randn(h, ffn), **norm(at + "norm1", h), **norm(at + "norm2", h)}
        # transformers 5.23's NomicBertConfig keys too: the converter's AutoConfig reads the file as that class, and
        # its find_hparam takes hidden_size (default 768) before n_embd
        native = {"hidden_size": h, "num_attention_heads": heads, "num_hidden_layers": layers,
                  "intermediate_size": ffn, "head_dim": h // heads}
        save(name, {**native, "architectures": ["NomicBertModel"], "model_type": "nomic_bert", "n_embd": h,
                    "n_head": heads,
                    "n_layer": layers, "n_inner": ffn, "n_positions": 8192, "max_trained_positions": 2048,
                    "vocab_size": BERT_VOCAB, "type_vocab_size": TYPES, "activation_function": "swiglu",
                    "causal": False, "prenorm": False, "qkv_proj_bias": False, "mlp_fc1_bias": False,
                    "mlp_fc2_bias": False, "rotary_emb_fraction": 1.0, "rotary_emb_interleaved": False,
                    "rotary_emb_scale_base": None, "rotary_emb_base": 1000, "layer_norm_epsilon": 1e-12}, tensors,
             pooling)
    for name, (h, heads, ffn, layers, pooling) in JINA.items():
        code = name == "jb-code"
        tensors = {"embeddings.word_embeddings.weight": torch.randn(BERT_VOCAB, h),
                   "embeddings.token_type_embeddings.weight": torch.randn(TYPES, h),
                   **norm("embeddings.LayerNorm", h)}
        for i in range(layers):
            at = f"encoder.layer.{i}."
            for part in ("attention.self.query", "attention.self.key", "attention.self.value",
                         "attention.output.dense"):
                tensors |= {f"{at}{part}.weight": torch.randn(h, h), f"{at}{part}.bias": torch.zeros(h)}
            tensors |= norm(at + "attention.output.LayerNorm", h)
            up, down, last = ("mlp.up_gated_layer", "mlp.down_layer", "layer_norm_2") if code else (
                "mlp.gated_layers", "mlp.wo", "mlp.layernorm")
            tensors |= {f"{at}{up}.weight": torch.randn(2 * ffn, h), f"{at}{down}.weight": torch.randn(h, ffn),
                        f"{at}{down}.bias": torch.zeros(h), **norm(at + last, h)}
            if code:
                tensors |= {**norm(at + "attention.self.layer_norm_q", h),
                            **norm(at + "attention.self.layer_norm_k", h), **norm(at + "layer_norm_1", h)}
        save(name, {"architectures": ["JinaBertModel"], "model_type": "bert", "hidden_size": h,
                    "num_attention_heads": heads, "num_hidden_layers": layers, "intermediate_size": ffn,
                    "max_position_embeddings": 8192, "vocab_size": BERT_VOCAB, "type_vocab_size": TYPES,
                    "position_embedding_type": "alibi", "feed_forward_type": "geglu", "layer_norm_eps": 1e-12,
                    "hidden_act": "gelu"}, tensors, pooling)


def make_all(out: Path) -> None:
    make(out)
    make_remote(out)


def convert(out: Path, tree: Path) -> None:
    """Runs itself as `_convert` once per file (the converter's main() reads sys.argv)."""
    (out / "gguf").mkdir(exist_ok=True)
    jobs = [(name, "f16") for name in (*MODELS, *NOMIC, *JINA)] + [("mb-small", "q8_0"), ("nb-small", "q8_0"),
                                                                  ("jb-small", "q8_0")]
    for name, kind in [job for job in jobs if (out / "hf" / job[0]).is_dir()]:  # those `make` wrote
        subprocess.run([sys.executable, __file__, "_convert", str(tree), str(out / "hf" / name), "--outtype", kind,
                        "--outfile", str(out / "gguf" / f"{name}-{kind}.gguf")], check=True)


def _convert(tree: Path, argv: list[str]) -> None:
    sys.path[:0] = [str(tree), str(tree / "gguf-py")]
    import convert_hf_to_gguf  # type: ignore[import-not-found]
    import gguf
    from conversion import bert  # type: ignore[import-not-found]

    def set_vocab(self: Any, vocab: str = "gpt-2") -> None:
        if vocab == "gpt-2":
            for flag in (self.gguf_writer.add_add_bos_token, self.gguf_writer.add_add_eos_token,
                         self.gguf_writer.add_add_sep_token):
                flag(True)
        reader = gguf.GGUFReader(str(tree / "models" / f"ggml-vocab-{vocab}.gguf"))
        for key, field in reader.fields.items():
            if key.startswith("tokenizer."):
                kind = field.types[0]
                extra = {"sub_type": field.types[-1]} if kind == gguf.GGUFValueType.ARRAY else {}
                self.gguf_writer.add_key_value(key, field.contents(), kind, **extra)

    parameters = bert.ModernBertModel.set_gguf_parameters

    def set_gguf_parameters(self: Any) -> None:
        parameters(self)
        self.gguf_writer.add_layer_norm_eps(self.hparams["norm_eps"])

    bert.ModernBertModel.set_vocab = set_vocab
    for remote in (bert.NomicBertModel, bert.JinaBertV2Model):
        remote.set_vocab = lambda self: set_vocab(self, "bert-bge")
    bert.NomicBertModel._is_tokenizer_xlmroberta = lambda self: False
    bert.ModernBertModel.set_gguf_parameters = set_gguf_parameters
    sys.argv = ["convert_hf_to_gguf.py", *argv]
    convert_hf_to_gguf.main()


def run(server: Path, model: Path, args: list[str]) -> dict[str, Any]:
    """One llama-server start: the bytes of its compute buffer and its context's settings."""
    command = [str(server), "-m", str(model), "--embedding", "-t", "1", "--port", os.environ.get("PORT", "18193"),
               "--host", "127.0.0.1", "--no-warmup", "-lv", "4", *args]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log, start = "", time.time()
    assert process.stdout is not None
    for line in process.stdout:
        log += line
        if "graph: nodes" in line or "exiting" in line or time.time() - start > 300:
            break
    process.send_signal(signal.SIGINT)
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    found = BYTES.search(log)
    if not found:
        raise SystemExit(f"no compute buffer line for {model.name} {args}:\n{log[-3000:]}")
    return {"model": model.name, "args": " ".join(args), **dict(CONTEXT.findall(log)), "compute": int(found[1])}


def sweep(tree: Path, models: list[tuple[Path, list[str]]], lines: Path) -> None:
    """One llama-server run per model (with its extra flags) and GRID point, each a JSON line appended to `lines`."""
    server = tree / "build" / "bin" / "llama-server"
    with lines.open("a", encoding="utf-8") as sink:
        for model, extra in models:
            for ubatch, slots, flash, context in GRID:
                result = run(server, model, ["-c", str(context), "-b", str(ubatch), "-ub", str(ubatch), "-np",
                                             str(slots), "-fa", flash, *extra])
                sink.write(json.dumps(result) + "\n")
                sink.flush()
                print(json.dumps(result))


def grid(out: Path, tree: Path, lines: Path, *prefixes: str) -> None:
    """Every model file, or those whose names start with one of `prefixes` (mb-, nb-, jb-)."""
    folder = out / "gguf"
    models = sorted(path for prefix in prefixes or ("mb-", "nb-", "jb-") for path in folder.glob(f"{prefix}*.gguf"))
    sweep(tree, [(m, ["--reranking"] if m.name.startswith("mb-rerank") else []) for m in models], lines)


def main(steps: dict[str, Any]) -> None:
    """`make DIR`, `convert DIR TREE` (runs `_convert TREE ARGS...` in a child), `grid DIR TREE OUT [PREFIX...]`."""
    step, *rest = sys.argv[1:]
    if step == "make":
        steps["make"](Path(rest[0]))
    elif step == "convert":
        steps["convert"](Path(rest[0]), Path(rest[1]))
    elif step == "_convert":
        steps["_convert"](Path(rest[0]), rest[1:])
    else:
        steps["grid"](Path(rest[0]), Path(rest[1]), Path(rest[2]), *rest[3:])


if __name__ == "__main__":
    main({"make": make_all, "convert": convert, "_convert": _convert, "grid": grid})
