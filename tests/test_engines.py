"""The engines' own memory against published logs (docs/research/engines.md §1f, §2d)."""

from __future__ import annotations

import pytest

from vramcalc import estimate, parse_workload
from vramcalc.core.errors import ValidationError
from vramcalc.core.units import GIB, MIB


def run(**values):
    return estimate(parse_workload({key: str(value) for key, value in values.items()}))


# llama.cpp: model, quant, n_ctx, flash attention, KV types -> compute buffer MiB, KV MiB, CUDA_Host compute MiB
LLAMACPP_LOGS = [
    # 1: llama-cpp-python log, Llama-3-8B Q4_K_M, 33/33 layers, n_ctx 512 (model buffer CUDA0 4403.49 MiB)
    (dict(model="llama-3-8b", precision="q4_k_m", seq=512, attention="eager"), 258.50, 64.00, 9.01),
    # 2: three Ollama logs, Llama-3.1-8B Q4_K_M, n_ctx 8192 in one stream
    (dict(model="llama-3.1-8b", precision="q4_k_m", seq=8192, attention="eager"), 560.00, 1024.00, 24.01),
    # 3, 4: fedora-copr/logdetective#106, a Mistral-7B-class model at n_ctx 2048 and 32768
    (dict(model="mistral-7b-v0.3", precision="q4_k_m", seq=2048, attention="eager"), 164.00, 256.00, 12.01),
    (dict(model="mistral-7b-v0.3", precision="q4_k_m", seq=32768, attention="eager"), 2144.00, 4096.00, 72.01),
    # 5: Ollama on ROCm, Qwen2.5-7B-Instruct Q4_K_M, n_ctx 8192
    (dict(model="qwen2.5-7b", precision="q4_k_m", seq=8192, attention="eager"), 492.00, 448.00, None),
]


@pytest.mark.parametrize(("values", "compute_mib", "kv_mib", "host_compute_mib"), LLAMACPP_LOGS)
def test_llamacpp_buffers_match_published_logs(values, compute_mib, kv_mib, host_compute_mib):
    # llama-cpp-python and Ollama's own runner: the library's default, logits for the whole micro-batch
    result = run(runtime="llamacpp", llamacpp_program="llama-completion", **values)
    assert result.bytes_of("activations") / MIB == pytest.approx(compute_mib, abs=0.5)
    assert result.bytes_of("kv_cache") / MIB == pytest.approx(kv_mib, abs=0.5)
    if host_compute_mib is not None:
        assert result.runtime["host_compute_buffer_bytes"] / MIB == pytest.approx(host_compute_mib, abs=0.5)


def test_llamacpp_model_buffers_of_the_first_log():
    # CUDA0 model buffer 4403.49 MiB, CPU 281.81 MiB (token embeddings stay in system RAM)
    result = run(runtime="llamacpp", model="llama-3-8b", precision="q4_k_m", seq=512, attention="eager")
    assert result.bytes_of("weights") / MIB == pytest.approx(4403.49, abs=0.5)
    host_weights = result.host_bytes - result.runtime["host_compute_buffer_bytes"] - result.runtime["kv_host_bytes"]
    assert host_weights / MIB == pytest.approx(281.81, abs=0.5)


def test_llamacpp_separate_k_and_v_types():
    # Phi-4-mini at n_ctx 2048, K q8_0 and V q4_0: 68 + 36 MiB (engines.md §1f row 7)
    result = run(runtime="llamacpp", model="phi-4-mini-instruct", precision="q2_k", seq=2048,
                 kv_precision_k="q8_0", kv_precision_v="q4_0", ubatch=32, llamacpp_program="llama-completion")
    assert result.bytes_of("kv_cache") / MIB == pytest.approx(68 + 36, abs=0.5)
    assert result.bytes_of("activations") / MIB == pytest.approx(25.3, abs=1.0)


def test_llamacpp_caches_the_mla_latent_as_k_only():
    # ik_llama.cpp#259's KV math: DeepSeek-V3, 32,768 cells of a q8_0 576-wide latent: 1166.6 MiB
    result = run(runtime="llamacpp", model="deepseek-v3", precision="q4_k_m", seq=32768, kv_precision="q8_0")
    assert result.bytes_of("kv_cache") / MIB == pytest.approx(1166.6, abs=0.5)


def test_partial_offload_moves_layers_to_system_ram():
    full = run(runtime="llamacpp", model="qwen3-32b", precision="q4_k_m", seq=8192)
    half = run(runtime="llamacpp", model="qwen3-32b", precision="q4_k_m", seq=8192, gpu_layers=33)
    assert half.runtime["gpu_layers"] == 33
    assert half.bytes_of("weights") < full.bytes_of("weights") / 2 + 1 * GIB
    moved = full.bytes_of("weights") + full.bytes_of("kv_cache") - half.bytes_of("weights") - half.bytes_of("kv_cache")
    assert half.host_bytes - full.host_bytes == pytest.approx(moved, rel=0.01)
    none = run(runtime="llamacpp", model="qwen3-32b", precision="q4_k_m", seq=8192, gpu_layers=0, ubatch=16)
    assert none.total_bytes == 0 and none.host_bytes > full.bytes_of("weights")


def test_ngl_0_still_multiplies_micro_batches_of_32_tokens_on_the_gpu():
    """Op offload (ggml-cuda.cu:5654): a matmul of 32 rows or more whose weight is in RAM runs on the GPU,
    on a copy of the weight in its compute buffer; measured on llama.cpp's Vulkan backend: -ngl 0 still
    allocates one, and experts in RAM add one expert tensor (docs/accuracy.md)."""
    from vramcalc.engines.llamacpp import compute_terms

    spec = run(runtime="llamacpp", model="qwen3-32b").workload.model
    none = run(runtime="llamacpp", model="qwen3-32b", precision="q8_0", seq=8192, gpu_layers=0)
    layer_term, _ = compute_terms(spec, n_ub=512, n_kv=8192, flash=True, n_out=4)
    ffn = 25600 * 5120 * 34 // 32  # the largest tensor of a layer: an MLP matrix in Q8_0
    assert none.bytes_of("activations") == layer_term + ffn and none.bytes_of("overhead") > 0
    assert none.bytes_of("weights") == none.bytes_of("kv_cache") == 0


def test_gpu_layers_beyond_the_model_mean_all_as_in_llama_cpp():
    every = run(runtime="llamacpp", model="qwen3-8b", precision="q4_k_m")
    ngl_999 = run(runtime="llamacpp", model="qwen3-8b", precision="q4_k_m", gpu_layers=999)
    assert ngl_999.total_bytes == every.total_bytes


# vLLM V1 logs on one H100 at 0.9 (llm-d/llm-d-benchmark empirical-vllm-memory-results.md): KV pool GiB
VLLM_LOGS = [
    (dict(model="llama-3.1-8b"), 51.38),
    (dict(model="gpt-oss-20b", precision="native"), 50.28),
    (dict(model="qwen3-0.6b"), 64.45),
]


# those versions sized the pool from the profiling estimate, at the 0.9 they were run with: 0.34's
# --no-enable-extensible-kv-cache path
BEFORE_034 = dict(gpu_memory_utilization="0.9", no_extensible_kv_cache="1")


@pytest.mark.parametrize(("values", "kv_pool_gib"), VLLM_LOGS)
def test_vllm_kv_pool_matches_published_v1_logs(values, kv_pool_gib):
    result = run(runtime="vllm", gpu="h100-80gb", **values, **BEFORE_034)
    assert result.runtime["kv_pool_bytes"] / GIB == pytest.approx(kv_pool_gib, rel=0.05)


def test_vllm_v0_log_with_its_own_non_torch_figure():
    # vllm-project/vllm#10511 (V0, Dec 2024): Llama-3-8B on an H100 at 0.90, weights 14.96, non-torch 1.79,
    # activation peak 1.26, KV 53.29 GiB; V0 sampled 256 sequences at most
    result = run(runtime="vllm", gpu="h100-80gb", model="llama-3-8b", max_num_seqs=256, overhead_gib=1.79,
                 **BEFORE_034)
    assert result.bytes_of("weights") / GIB == pytest.approx(14.96, abs=0.01)
    assert result.runtime["kv_pool_bytes"] / GIB == pytest.approx(53.29, rel=0.05)


def test_vllm_max_concurrency_is_the_pool_over_one_sequence():
    result = run(runtime="vllm", gpu="h100-80gb", model="llama-3.1-8b", seq=8192)
    per_sequence = 8192 * 131_072  # 128 blocks of 64 tokens (vLLM 0.34 on an H100), 128 KiB per token
    assert result.runtime["max_concurrency"] == pytest.approx(result.runtime["kv_pool_bytes"] / per_sequence, abs=0.01)
    assert result.runtime["kv_tokens"] == result.runtime["kv_pool_bytes"] // (64 * 131_072) * 64
    assert result.runtime["block_tokens"] == 64


# vLLM 0.34's KV block (platforms/interface.py update_block_size_for_backend): 64 unless the platform's first
# attention backend prefers another size. CUDA: FLASH_ATTN, FLASHINFER on SM100, the MLA backends all take 64;
# DeepSeek-V4's indexer takes 256 only. ROCm: ROCM_ATTN prefers 16, but not for sinks (gpt-oss), a head size it lacks
# (Gemma 4's 512), MLA (TRITON_MLA), or on gfx1100/gfx1201 cards, where TRITON_ATTN comes first.
@pytest.mark.parametrize(("model", "card", "block"), [
    ("llama-3.1-8b", "a100-80gb", 64), ("llama-3.1-8b", "h100-80gb", 64), ("llama-3.1-8b", "b200", 64),
    ("llama-3.1-8b", "rtx-5090", 64), ("gpt-oss-20b", "h100-80gb", 64), ("gemma-3-27b-it", "b200", 64),
    ("deepseek-v3", "h100-80gb", 64), ("deepseek-v3.2", "b200", 64), ("deepseek-v4-flash", "b200", 256),
    ("llama-3.1-8b", "mi300x", 16), ("qwen3-8b", "strix-halo", 16), ("llama-3.1-8b", "rx-7900-xtx", 64),
    ("gpt-oss-20b", "mi300x", 64), ("gemma-4-31b-it", "mi300x", 64), ("deepseek-v3", "mi300x", 64),
])
def test_vllm_block_is_the_attention_backends_choice(model, card, block):
    from vramcalc.engines.vllm import vllm_block_tokens
    from vramcalc.sources.gpus import gpu

    assert vllm_block_tokens(parse_workload({"model": model, "runtime": "vllm"}).model, gpu(card)) == block


@pytest.mark.parametrize(("card", "block"), [("h100-80gb", 64), ("mi300x", 16)])
def test_vllm_pool_tokens_and_each_sequence_are_whole_blocks_of_the_card(card, block):
    # a 1,000-token request: 16 blocks of 64 on an H100 (1,024 tokens), 63 of 16 on an MI300X (1,008)
    from vramcalc.render.messages import ENGLISH

    result = run(runtime="vllm", gpu=card, model="llama-3.1-8b", seq=1000)
    pool, tokens = result.runtime["kv_pool_bytes"], result.runtime["kv_tokens"]
    assert result.runtime["block_tokens"] == block and tokens % block == 0
    assert tokens == pool // (block * 131_072) * block
    assert result.bytes_of("kv_cache") == -(-1000 // block) * block * 131_072
    said = ENGLISH.say(next(c for c in result.components if c.key == "kv_cache").explain())
    assert f"whole {block}-token blocks" in said


def test_vllm_hybrid_block_rounds_by_the_block_before_alignment():
    # _align_hybrid_block_size: B = u · ceil(state / (u · A)), u the block phase 1 picked, at least 128 on MLA.
    # Kimi Linear (MLA beside KDA): A = 576 × 2 B, state 2,170,880 B: 128 · 15 = 1,920 on any card (16 · 118 = 1,888
    # with 0.33's unit). Qwen3.5-27B: 832 on CUDA, 784 under ROCM_ATTN (test_speed).
    from vramcalc.engines.vllm import vllm_hybrid_block_tokens
    from vramcalc.sources.gpus import gpu

    kimi = parse_workload({"model": "kimi-linear-48b-a3b-instruct", "runtime": "vllm"})
    for card in (None, gpu("h100-80gb"), gpu("mi300x")):
        assert vllm_hybrid_block_tokens(kimi.model, kimi.effective_kv_precision, card) == 1920
    qwen = run(runtime="vllm", gpu="h100-80gb", model="qwen3.5-27b", seq=1000)
    assert qwen.runtime["block_tokens"] == 832 and qwen.runtime["kv_tokens"] % 832 == 0


@pytest.mark.parametrize(("values", "field"), [
    (dict(runtime="vllm", mode="training"), "runtime"),
    (dict(runtime="vllm", gpu_memory_utilization="1.5"), "gpu_memory_utilization"),
    (dict(runtime="vllm", gpu_memory_utilization="0"), "gpu_memory_utilization"),
    (dict(runtime="llamacpp", precision="awq-int4"), "precision"),
    (dict(runtime="vllm", precision="q4_k_m"), "precision"),
    (dict(runtime="vllm", kv_precision="q8_0"), "kv_precision"),
    (dict(runtime="tensorrt"), "runtime"),
])
def test_engine_settings_a_model_cannot_use_name_the_field(values, field):
    with pytest.raises(ValidationError) as caught:
        run(**values)
    assert caught.value.field == field


def test_transformers_stays_the_default_with_the_cards_overhead():
    # the default card, an H100: one published run held 78.09 - 75.31 - 1.83 GiB outside PyTorch's allocator, and
    # PyTorch gives Hopper a 32 MiB cuBLAS workspace (it was 1 GiB on every card)
    result = run(model="llama-3-8b")
    assert result.runtime == {"name": "transformers"}
    assert result.bytes_of("overhead") == round(78.09 * GIB) - round(75.31 * GIB) - round(1.83 * GIB) + 32 * 2**20
    assert run(model="llama-3-8b", gpu="mi300x").bytes_of("overhead") == GIB  # none published: today's 1 GiB


def test_best_formats_are_the_most_precise_that_fit():
    from vramcalc.analysis.solve import solve
    from vramcalc.inputs.parse import parse_target

    workload = parse_workload({"model": "qwen3-32b", "runtime": "llamacpp", "precision": "q4_k_m", "seq": "32768"})
    target = parse_target({"gpu": "rtx-4090"})
    solution = solve(workload, target)
    order = ("f16", "q8_0", "q6_k", "q5_k_m", "q5_k_s", "q4_k_m", "q4_k_s", "iq4_xs", "q3_k_l", "q3_k_m")
    best = solution.best_format
    assert best in order

    def fits_with(**change):
        import dataclasses

        from vramcalc.analysis.solve import fits
        from vramcalc.inputs.options import parse_precision
        if "precision" in change:
            change["precision"] = parse_precision(change["precision"])
        return fits(dataclasses.replace(workload, **change), target)

    assert fits_with(precision=best)
    assert not any(fits_with(precision=name) for name in order[:order.index(best)])
    assert solution.best_kv_format == "q8_0"  # f16 does not fit at q4_k_m and 32k; q8_0 does
