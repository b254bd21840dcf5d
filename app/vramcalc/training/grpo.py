"""GRPO as TRL's GRPOTrainer runs it (trl 1.16, trainer/grpo_trainer.py and grpo_config.py; measured with
tools/measure_grpo.py, tests/golden/measured_grpo.json).

--batch counts completions, as TRL's `per_device_train_batch_size` does: a step generates for a batch of
per_device_train_batch_size × steps_per_generation sequences (steps_per_generation = gradient_accumulation_steps
by default), the prompts repeated `num_generations` times (`RepeatSampler`), and scores them in micro-batches of
per_device_train_batch_size. `num_generations` must divide that batch; at a given --batch it changes how many
prompts there are, not the bytes. TRL keeps the generation batch (`_buffered_inputs`) and generates again every
steps_per_generation × num_iterations micro-steps (`_prepare_inputs`): with `num_iterations` μ > 1 each completion
is trained on μ times. --seq is the whole sequence, prompt and completion; `--completion-tokens`
(`max_completion_length`, 512) of it are generated and scored.

The step, in order (step.py's phases):

    generation  `_generate_single_turn` under no_grad, before the policy's forward: transformers' `generate` over
                the generation batch, its DynamicCache growing to prompt + completion − 1 tokens, the prompt's prefill
                first; or colocated vLLM's share of the card (`vllm_gpu_memory_utilization`, 0.3; vLLM's
                gpu_worker.py claims that share of the card per instance: from source, not measured); a vLLM
                server on other GPUs holds nothing here.
    reference   beta > 0: the reference's forward under no_grad, still before the policy's (no activations
                live), in micro-batches of --batch: a layer's work or its fused head (preference.py). TRL scores
                the old policy's log-probabilities so too, one forward after the other, when the batch is
                trained on after the policy has changed (gradient_accumulation_steps not a multiple of
                steps_per_generation × num_iterations: μ > 1, or more steps per generation than accumulated), and
                with vLLM (`vllm_importance_sampling_correction`). Those log-probabilities are kept for the
                loss's ratio, fp32 per completion token: negligible beside the step, as the ratio's tensors
                (per token, or per sequence for RLOO) are (measured, tests/golden/measured_grpo_iterations.json).
    forward …   the policy's forward and backward over prompt and completion with TRL's fused LM head, then the
                update, as DPO's (preference.py).

RLOO (trl 1.16, trainer/rloo_trainer.py `_generate_and_score_completions`, `_compute_loss`) runs this step: the same
generation batch, sampler, fused head and reference (TRL's beta 0.05 by default: a copy, or under LoRA the adapters
switched off), and the old policy's no_grad forward at every generation, whatever the steps. Its baseline is the
group's other completions' mean, the KL goes into the reward (per sequence, computed in that no_grad scoring)
rather than the loss, and its ratio is per sequence: none of these holds memory the GRPO step does not (measured:
its phases are GRPO's with that forward, within bytes).

Colocated vLLM keeps its share through the whole step; with `vllm_enable_sleep_mode` TRL puts it to sleep
(`sleep(level=2)`: weights and cache released) after generating and wakes it for the next, so the share counts
in the generation phase only.
"""

from __future__ import annotations

import math

from ..core.choices import GENERATING, Mode, Objective, Reference, Rollout
from ..core.dtypes import FP32_BYTES
from ..memory.activations import inference_activations, lora_compute_bytes
from ..memory.kv_cache import kv_cache_bytes
from ..training.lora import adapted
from ..workload import Workload

VLLM_ROLLOUTS = frozenset({Rollout.VLLM_COLOCATE, Rollout.VLLM_COLOCATE_SLEEP})


def steps_per_generation(workload: Workload) -> int:
    """The micro-steps one generation batch is split into (TRL's steps_per_generation; gradient_accumulation_steps
    when not given)."""
    return workload.steps_per_generation or workload.grad_accum


def generation_sequences(workload: Workload) -> int:
    """TRL's generation batch on this GPU: per_device_train_batch_size × steps_per_generation."""
    return workload.batch * steps_per_generation(workload)


def generation_gpus(workload: Workload) -> int:
    """The GPU counts TRL's GRPO and RLOO run are the multiples of this: the generations per prompt must divide the
    generation batch of all GPUs, `generation_sequences` × GPUs (inputs/parse.py _check_grpo); 1 for any other
    workload."""
    if not workload.is_training or workload.objective not in GENERATING:
        return 1
    return workload.generations // math.gcd(workload.generations, generation_sequences(workload))


def generations_per_step(workload: Workload) -> float:
    """The generations an optimizer step runs on average: one every steps_per_generation × num_iterations
    micro-steps, gradient_accumulation_steps of them per optimizer step (PPO's: ppo.rollouts_per_step)."""
    return workload.grad_accum / (steps_per_generation(workload) * workload.num_iterations)


def scores_old_policy(workload: Workload) -> bool:
    """TRL scores the old policy without gradients after generating: RLOO always; GRPO when the batch is trained on
    after an update (`gradient_accumulation_steps % generate_every`), or under vLLM for its sampling correction."""
    if workload.objective is Objective.RLOO:
        return True
    every = steps_per_generation(workload) * workload.num_iterations
    return workload.grad_accum % every != 0 or workload.rollout is not Rollout.TRANSFORMERS


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
    scaled copy (`lora_B(lora_A(x)) * scaling`) beside the layer's work, for the widest adapted matrix (Unsloth's
    matmul_lora makes them in the input's dtype: memory/activations.lora_compute_bytes)."""
    if not workload.lora:
        return 0
    return 2 * max(t.shape[0] for t, _ in adapted(workload.model, workload.lora)) * lora_compute_bytes(workload)


def colocated_share(workload: Workload) -> int:
    """Colocated vLLM's claim: vllm_gpu_memory_utilization × the card (0 without a card)."""
    card = workload.gpu
    return int(card.usable_bytes * workload.vllm_gpu_memory_utilization) if card is not None else 0


def no_grad_forwards(workload: Workload) -> int:
    """The no_grad forwards over each generation batch: the old policy's and the reference's (beta > 0)."""
    return int(scores_old_policy(workload)) + int(workload.reference_model is not Reference.NONE)


def scores_without_gradients(workload: Workload) -> bool:
    """A no_grad forward before the policy's: the reference's (beta > 0), or the old policy's."""
    return no_grad_forwards(workload) > 0
