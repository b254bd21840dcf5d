"""Qwen3 rerankers under llama.cpp's `--reranking`: the CPU compute buffer to the byte (tests/golden/
llamacpp_embedding.json, kind "decoder-rerank"; docs/accuracy.md, "llama.cpp's `--embedding` compute buffer,
measured"). The tree, its two local edits and its CPU build are tools/measure_llamacpp_embedding.py's; then:

  python tools/measure_llamacpp_rerank.py make DIR            # random-weight fp16 Qwen3ForCausalLM in DIR/hf
  python tools/measure_llamacpp_rerank.py convert DIR TREE    # DIR/gguf/NAME-f16.gguf
  python tools/measure_llamacpp_rerank.py grid DIR TREE OUT   # one JSON line per llama-server run, to OUT

The models are Qwen3ForCausalLM, as the Qwen/Qwen3-Reranker-* repositories are, saved under a name holding
"qwen3-reranker" (the converter's `Qwen3Model._is_qwen3_reranker` reads it). `convert` runs the tree's
convert_hf_to_gguf.py with two replacements: Qwen3Model.set_vocab takes the tokenizer of the tree's own
models/ggml-vocab-qwen2.gguf, and `_find_rerank_config` reads the "yes", "no" and "|" ids from that vocabulary
(9693, 2152, 91) instead of AutoTokenizer (the models have no tokenizer files); the rest is the converter's: is_rerank,
cls.output = the head's yes/no rows, pooling RANK, an untied lm_head dropped. `grid` starts llama-server --embedding
--reranking at each grid point of the embedding measurement."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from measure_llamacpp_embedding import main, sweep

# name: hidden, layers, heads, KV heads, head_dim, intermediate, tied (the sizes of the Qwen3 embedders measured)
MODELS = {"qwen3-reranker-small": (128, 2, 4, 2, 32, 384, True),
          "qwen3-reranker-untied": (128, 2, 4, 2, 32, 384, False), "qwen3-reranker-odd": (192, 5, 6, 2, 48, 700, True)}


def make(out: Path) -> None:
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(0)
    for name, (h, layers, heads, kv, head_dim, ffn, tied) in MODELS.items():
        config = Qwen3Config(vocab_size=151936, hidden_size=h, num_hidden_layers=layers, num_attention_heads=heads,
                             num_key_value_heads=kv, head_dim=head_dim, intermediate_size=ffn,
                             tie_word_embeddings=tied, max_position_embeddings=32768, rope_theta=1000000)
        Qwen3ForCausalLM(config).to(torch.float16).save_pretrained(out / "hf" / name)


def convert(out: Path, tree: Path) -> None:
    """Runs itself as `_convert` once per file (the converter's main() reads sys.argv)."""
    (out / "gguf").mkdir(exist_ok=True)
    for name in MODELS:
        subprocess.run([sys.executable, __file__, "_convert", str(tree), str(out / "hf" / name), "--outtype", "f16",
                        "--outfile", str(out / "gguf" / f"{name}-f16.gguf")], check=True)


def _convert(tree: Path, argv: list[str]) -> None:
    sys.path[:0] = [str(tree), str(tree / "gguf-py")]
    import convert_hf_to_gguf  # type: ignore[import-not-found]
    import gguf
    from conversion import qwen  # type: ignore[import-not-found]

    reader = gguf.GGUFReader(str(tree / "models" / "ggml-vocab-qwen2.gguf"))
    tokens = list(reader.fields["tokenizer.ggml.tokens"].contents())

    def set_vocab(self: Any) -> None:
        for key, field in reader.fields.items():
            if key.startswith("tokenizer."):
                kind = field.types[0]
                extra = {"sub_type": field.types[-1]} if kind == gguf.GGUFValueType.ARRAY else {}
                self.gguf_writer.add_key_value(key, field.contents(), kind, **extra)

    def find_rerank_config(self: Any) -> None:
        self.is_rerank = True
        self.is_tied_embeddings = self.hparams.get("tie_word_embeddings", False)
        self.token_false_id, self.token_true_id = tokens.index("no"), tokens.index("yes")
        self.sep_token_id = tokens.index("|")

    qwen.Qwen3Model.set_vocab = set_vocab
    qwen.Qwen3Model._find_rerank_config = find_rerank_config
    sys.argv = ["convert_hf_to_gguf.py", *argv]
    convert_hf_to_gguf.main()


def grid(out: Path, tree: Path, lines: Path) -> None:
    sweep(tree, [(out / "gguf" / f"{name}-f16.gguf", ["--reranking"]) for name in MODELS], lines)


if __name__ == "__main__":
    main({"make": make, "convert": convert, "_convert": _convert, "grid": grid})
