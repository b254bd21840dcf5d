"""PPO as TRL's PPOTrainer runs it (trl 1.9.0, commit 35def3ee, trl/experimental/ppo/ppo_trainer.py `train` and
ppo_config.py, trl/experimental/utils.py `get_reward`; the last release with it: TRL 1.16 has none; measured with
tools/measure_ppo.py, tests/golden/measured_ppo.json).

Four models: the policy; the value model, trained with it (`PolicyAndValueWrapper`, one optimizer over both, each
with its own gradients and state); the frozen reference (a copy, or under LoRA the policy with its adapters off:
`null_ref_context`; LoRA leaves the value model whole and trained); and the frozen reward model. The value and reward
models are sequence classifiers (the backbone with a 1-output `score`) of the policy's architecture here, as TRL's
examples/scripts/ppo/ppo.py loads them (`reward_model_path`, an RM of the policy's size).

--batch is `per_device_train_batch_size`; an update rolls out `local_batch_size` = batch × grad_accum prompts, then
trains `num_ppo_epochs` (4) × `num_mini_batches` (1) optimizer steps on them, each of grad_accum micro-batches of
--batch. --seq is prompt + response; `--completion-tokens` is `response_length`. The phases, in order (step.py's):

    generation  `batch_generation` in chunks of `local_rollout_forward_batch_size` (64): `generate` with
                `output_scores=True` keeps every new token's fp32 scores (chunk × response × vocab × 4), stacked into
                a copy at the end beside the cache; then `pad` copies the chunks' scores into one tensor. The previous
                update's (still `logitss` in `train`) is live until that returns: its worst is the last chunk's
                stack, or the pad (three such tensors at once).
    reference   per chunk, no_grad: the reference's `forward` (with its hidden states, `output_hidden_states`, and a
                DynamicCache, as `use_cache` is not turned off), its logits, a row's log-softmax; then the value's
                and the reward's backbones (`get_reward`, hidden states, no cache), less than it.
    forward …   per micro-batch, the wrapper's forward: the value's backbone and score, then the policy's, both saving
                activations; the policy's logits (batch × seq × vocab) and every hidden state (`output`, held
                through the update); the log-softmax of each row's response saved for the backward. Its backward
                (temperature division on a view, the slice) makes two logits-sized and one response-sized gradient,
                then the policy's layers, then the value's, whose activations are live beside the policy's gradients.
                The rollout's scores stay live throughout; under accumulation the previous micro-batch's output is
                live at the next forward's head, and its softmax (the entropy statistic) until its step.

PPOTrainer never enables gradient checkpointing (its `__init__` does not call the Trainer's), and generates with
transformers only. With SDPA and padded prompts TRL's attention mask makes SDPA repeat K and V and save a mask; the
estimate is FlashAttention-2's (measured without padding).
"""

from __future__ import annotations

import dataclasses
import math

from ..core.choices import Mode
from ..core.dtypes import FP32_BYTES
from ..memory.kv_cache import kv_cache_bytes
from ..model.families.decoder.spec import ModelSpec
from ..model.families.reranker import Reranker
from ..training import grpo, preference
from ..workload import Workload


def classifier(model: ModelSpec) -> ModelSpec:
    """The value and reward models: `AutoModelForSequenceClassification` with num_labels 1, the backbone without an
    LM head and a 1 × hidden score."""
    return dataclasses.replace(model, tie_embeddings=True, head_bias=False, reranker=Reranker(labels=1, scored=True))


def rollout_sequences(workload: Workload) -> int:
    """TRL's local_batch_size: per_device_train_batch_size × gradient_accumulation_steps."""
    return workload.batch * workload.grad_accum


def chunk(workload: Workload) -> int:
    return min(workload.local_rollout_forward_batch_size, rollout_sequences(workload))


def rollouts_per_step(workload: Workload) -> float:
    """The rollout's chunks an optimizer step runs on average: all of them once every num_ppo_epochs steps."""
    return math.ceil(rollout_sequences(workload) / chunk(workload)) / workload.num_ppo_epochs


def chunk_scores(workload: Workload) -> int:
    """One chunk's generation scores: chunk × response × vocab in fp32."""
    return chunk(workload) * workload.completion_tokens * workload.model.vocab * FP32_BYTES


def held(workload: Workload) -> int:
    """The rollout's padded scores, live from the pad to the next update's pad: chunks × one chunk's."""
    return math.ceil(rollout_sequences(workload) / chunk(workload)) * chunk_scores(workload)


def generation(workload: Workload) -> tuple[int, int]:
    """(cache, working bytes) beyond the previous update's scores at `batch_generation`'s worst: the last chunk's
    stack (the earlier chunks' scores, its own twice, its cache), `generate`'s own worst with the earlier chunks'
    scores beside it, or the pad (the chunks and their padded copy)."""
    one, done = chunk_scores(workload), held(workload) - chunk_scores(workload)
    run = workload.but(batch=chunk(workload), grad_accum=1, steps_per_generation=1)
    cache, work = grpo.generate_sizes(run)
    at_end = kv_cache_bytes(run.but(mode=Mode.INFERENCE, seq=workload.seq - 1)).bytes
    return max((at_end, done + 2 * one), (cache, work + done), (0, 2 * held(workload)), key=sum)


def rollout_forward(workload: Workload, e: int) -> int:
    """The reference's no_grad forward over a chunk, the worst of the rollout's: its cache and the hidden states so
    far beside the last layer's work, or all of them with the logits and a row's log-softmax."""
    model, seq, rows = workload.model, workload.seq, chunk(workload)
    run = workload.but(batch=rows)
    cache = kv_cache_bytes(run.but(mode=Mode.INFERENCE)).bytes
    hidden = rows * seq * model.hidden * e
    head = (model.layers + 1) * hidden + rows * seq * model.vocab * e + workload.completion_tokens * model.vocab * e
    return cache + max(model.layers * hidden + preference.layer_work(run, e), head)


def logits(workload: Workload, e: int) -> int:
    """The policy's logits over the micro-batch: batch × seq × vocab."""
    return workload.batch * workload.seq * workload.model.vocab * e


def responses(workload: Workload, e: int) -> int:
    """A response-sized tensor over the vocabulary: the saved log-softmax rows, or the entropy's softmax."""
    return workload.batch * workload.completion_tokens * workload.model.vocab * e


def output(workload: Workload, e: int) -> int:
    """What the policy's `output` holds past its backward: the logits and every hidden state."""
    return logits(workload, e) + (workload.model.layers + 1) * workload.batch * workload.seq * workload.model.hidden * e


def loss_gradient(workload: Workload, e: int) -> int:
    """The head's backward: two logits-sized gradients (the slice's and the in-place division's) and a response-sized
    one beyond the rows freed."""
    return 2 * logits(workload, e) + responses(workload, e)
