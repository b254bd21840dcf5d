"""GRPO as TRL's GRPOTrainer runs it (trl 1.16, trainer/grpo_trainer.py and grpo_config.py; measured with
tools/measure_grpo.py, tests/golden/measured_grpo.json).

--batch counts completions, as TRL's `per_device_train_batch_size` does: a step generates for a batch of
per_device_train_batch_size × steps_per_generation sequences (steps_per_generation = gradient_accumulation_steps
by default), the prompts repeated `num_generations` times (`RepeatSampler`), and scores them in micro-batches of
per_device_train_batch_size. `num_generations` must divide that batch; at a given --batch it changes how many
prompts there are, not the bytes. --seq is the whole sequence, prompt and completion; `--completion-tokens`
(`max_completion_length`, 512) of it are generated and scored.

The step, in order (step.py's phases):

    generation  `_generate_single_turn` under no_grad, before the policy's forward: transformers' `generate` over
                the generation batch, its DynamicCache growing to prompt + completion − 1 tokens, the prompt's prefill
                first; or colocated vLLM's share of the card (`vllm_gpu_memory_utilization`, 0.3; vLLM's
                gpu_worker.py claims that share of the card per instance: from source, not measured); a vLLM
                server on other GPUs holds nothing here.
    reference   beta > 0: the reference's forward under no_grad, still before the policy's (no activations
                live), in micro-batches of --batch: a layer's work or its fused head (preference.py). With vLLM,
                TRL scores the old policy's log-probabilities so too (`vllm_importance_sampling_correction`).
    forward …   the policy's forward and backward over prompt and completion with TRL's fused LM head, then the
                update, as DPO's (preference.py).

Colocated vLLM keeps its share through the whole step; with `vllm_enable_sleep_mode` TRL puts it to sleep
(`sleep(level=2)`: weights and cache released) after generating and wakes it for the next, so the share counts
in the generation phase only.
"""

from __future__ import annotations

from ..core.choices import Mode, Reference, Rollout
from ..core.dtypes import FP32_BYTES
from ..memory.activations import inference_activations
from ..memory.kv_cache import kv_cache_bytes
from ..training.lora import adapted
from ..workload import Workload

VLLM_ROLLOUTS = frozenset({Rollout.VLLM_COLOCATE, Rollout.VLLM_COLOCATE_SLEEP})


def generation_sequences(workload: Workload) -> int:
    """TRL's generation batch on this GPU: per_device_train_batch_size × steps_per_generation."""
    return workload.batch * workload.grad_accum


def prompt_tokens(workload: Workload) -> int:
    return workload.seq - workload.completion_tokens


def generate_sizes(workload: Workload) -> tuple[int, int]:
    """(cache, working bytes) at `generate`'s worst instant: the prompt's prefill (its cache, a layer's prefill
    work and the last position's fp32 logits) or the last new token (the cache of seq − 1 tokens, the fp32
    logits and their softmax for sampling, and one layer's K grown by `DynamicLayer.update`'s torch.cat while
    the old one is alive)."""
    run = workload.but(mode=Mode.INFERENCE, batch=generation_sequences(workload))
    logits = run.batch * workload.model.vocab * FP32_BYTES
    prefill = run.but(seq=prompt_tokens(workload))
    adapters = run.batch * prefill.seq * adapter_outputs(workload)
    at_prefill = (kv_cache_bytes(prefill).bytes, inference_activations(prefill).bytes + adapters + logits)
    cache = kv_cache_bytes(run.but(seq=workload.seq - 1)).bytes
    at_end = (cache, 2 * logits + cache // (2 * workload.model.layers))
    return max(at_prefill, at_end, key=sum)


def adapter_outputs(workload: Workload) -> int:
    """Per prefill token under LoRA: peft's `Linear.forward` makes lora_B's output in the adapters' dtype and its
    scaled copy (`lora_B(lora_A(x)) * scaling`) beside the layer's work, for the widest adapted matrix."""
    if not workload.lora:
        return 0
    return 2 * max(t.shape[0] for t, _ in adapted(workload.model, workload.lora)) * int(workload.lora_dtype.bits) // 8


def colocated_share(workload: Workload) -> int:
    """Colocated vLLM's claim: vllm_gpu_memory_utilization × the card (0 without a card)."""
    card = workload.gpu
    return int(card.usable_bytes * workload.vllm_gpu_memory_utilization) if card is not None else 0


def scores_without_gradients(workload: Workload) -> bool:
    """A no_grad forward before the policy's: the reference's (beta > 0), or the old policy's under vLLM."""
    return workload.reference_model is not Reference.NONE or workload.rollout is not Rollout.TRANSFORMERS
