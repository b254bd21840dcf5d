"""ModernBERT under llama.cpp's `--embedding`: the CPU compute buffer to the byte (tests/golden/llamacpp_embedding.json,
kind "modernbert"; docs/accuracy.md, "llama.cpp's `--embedding` compute buffer, measured").

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
  python tools/measure_llamacpp_embedding.py grid DIR TREE OUT   # one JSON line per llama-server run, to OUT

`convert` runs the tree's convert_hf_to_gguf.py with two replacements: ModernBertModel.set_vocab takes the
tokenizer of the tree's own models/ggml-vocab-gpt-2.gguf (the models have no tokenizer files; their vocab_size is
its 50,257 tokens), and attention.layer_norm_epsilon is written (that converter writes norm_eps as an RMS epsilon,
which modern-bert.cpp does not read). `grid` starts llama-server --embedding (--reranking for the classifier) at
each grid point and reads the bytes of its "CPU compute buffer size" line."""

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
        if pooling:  # sentence-transformers' modules.json and pooling config, which the converter reads
            (folder / "1_Pooling").mkdir(exist_ok=True)
            (folder / "modules.json").write_text(json.dumps([
                {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]))
            (folder / "1_Pooling" / "config.json").write_text(json.dumps({f"pooling_mode_{pooling}": True}))


def convert(out: Path, tree: Path) -> None:
    """Runs itself as `_convert` once per file (the converter's main() reads sys.argv)."""
    (out / "gguf").mkdir(exist_ok=True)
    jobs = [(name, "f16") for name in MODELS] + [("mb-small", "q8_0")]
    for name, kind in jobs:
        subprocess.run([sys.executable, __file__, "_convert", str(tree), str(out / "hf" / name), "--outtype", kind,
                        "--outfile", str(out / "gguf" / f"{name}-{kind}.gguf")], check=True)


def _convert(tree: Path, argv: list[str]) -> None:
    sys.path[:0] = [str(tree), str(tree / "gguf-py")]
    import convert_hf_to_gguf  # type: ignore[import-not-found]
    import gguf
    from conversion import bert  # type: ignore[import-not-found]

    def set_vocab(self: Any) -> None:
        for flag in (self.gguf_writer.add_add_bos_token, self.gguf_writer.add_add_eos_token,
                     self.gguf_writer.add_add_sep_token):
            flag(True)
        reader = gguf.GGUFReader(str(tree / "models" / "ggml-vocab-gpt-2.gguf"))
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


def grid(out: Path, tree: Path, lines: Path) -> None:
    models = sorted((out / "gguf").glob("mb-*.gguf"))
    sweep(tree, [(m, ["--reranking"] if m.name.startswith("mb-rerank") else []) for m in models], lines)


def main(steps: dict[str, Any]) -> None:
    """`make DIR`, `convert DIR TREE` (which runs `_convert TREE ARGS...` in a child) or `grid DIR TREE OUT`."""
    step, *rest = sys.argv[1:]
    if step == "make":
        steps["make"](Path(rest[0]))
    elif step == "convert":
        steps["convert"](Path(rest[0]), Path(rest[1]))
    elif step == "_convert":
        steps["_convert"](Path(rest[0]), rest[1:])
    else:
        steps["grid"](Path(rest[0]), Path(rest[1]), Path(rest[2]))


if __name__ == "__main__":
    main({"make": make, "convert": convert, "_convert": _convert, "grid": grid})
