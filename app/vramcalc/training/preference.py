"""DPO as TRL's DPOTrainer runs it (trl 1.16, trainer/dpo_trainer.py; measured with
tools/measure_preference.py, tests/golden/measured_preference.json).

`DataCollatorForPreference` puts each pair's chosen and rejected sequences in one batch (2 × pairs
sequences), and the policy and the reference score them with TRL's fused LM head
(trainer/utils.py `add_fused_lm_head`, kernels/chunked_logprob.py `ChunkedLogProbFunction`): the
logits are never made whole; each tile of up to 4,096 tokens × 32,768 vocabulary entries is
projected into one buffer of that width (in the compute dtype, whatever the vocabulary) and
folded into per-token statistics. Its backward recomputes the tiles and accumulates the head's
input gradient and, when the head trains, its weight gradient in fp32, then casts both to the
weights' dtype while the fp32 ones are still alive.

The step, in order: the policy's forward (activations saved, the head's buffer at its end); the
reference's forward under no_grad beside them (its layers one at a time, without a cache, and its
own head); the head's backward; the layers' backward; the update, as a supervised step has them
(step.py). A reference `copy` is a second set of the policy's weights in their dtype; `adapters-off`
runs the LoRA policy with its adapters disabled; `precomputed` log-probabilities leave no reference
forward in the step.

KTO (trainer/kto_trainer.py `_compute_loss`) scores --batch unpaired completions (`per_device_train_batch_size`,
which must exceed 1 for its KL term) with the same head. Before the policy's forward it scores the KL batch, the
same prompts with the completions cycled by one (`add_kl_completion_ids`), under no_grad and without the states a
forward saves (its own phase, `kl`); the reference then scores the KL batch and the completions, one forward after
the other, beside the policy's activations. Precomputed log-probabilities drop the reference's forwards, not the
policy's KL one.

ORPO (trl/experimental/orpo/orpo_trainer.py `concatenated_forward`, measured with tools/measure_orpo.py,
tests/golden/measured_orpo.json) has no reference and no fused head: one forward of the whole model over the 2 × pairs
sequences makes their logits whole, in the compute dtype. The chosen half's cross-entropy runs on a contiguous copy of
its logits (all positions but the last) and saves its log-softmax; `get_batch_logps` scores every sequence with
`selective_log_softmax`, on a GPU TRL's Triton kernel (kernels/logprob_entropy.py), which saves the logits themselves
and two fp32 statistics per position. Its backward writes one logits-sized gradient, the cross-entropy's another, each
widened to the whole logits by the slices' backward, and their sum is a third: three logits-sized tensors at once,
after the logits and the log-softmax are freed.
"""

from __future__ import annotations

from ..core.choices import GENERATING, Checkpointing, Objective
from ..core.dtypes import FP32_BYTES
from ..model.families.decoder.prefill import prefill_masks, prefill_per_token
from ..workload import Workload

TILE_TOKENS = 4096  # kernels/chunked_logprob.py TOKEN_CHUNK_SIZE
TILE_VOCAB = 32768  # trainer/utils.py _CHUNKED_LOGPROB_CHUNK_SIZE
STATS_BYTES = 2 * FP32_BYTES  # log_z and the entropy, fp32 per scored token, saved for backward


def sequences(workload: Workload) -> int:
    """The sequences of one forward: DPO's and ORPO's 2 × pairs; KTO's --batch completions and GRPO's (grpo.py), each
    with its prompt (KTO's KL batch is as many again, in forwards of its own)."""
    return 2 * workload.batch if workload.objective in (Objective.DPO, Objective.ORPO) else workload.batch


def scored_tokens(workload: Workload) -> int:
    """The tokens the head scores: DPO and KTO, every position but the last of each sequence (an upper bound:
    TRL scores the answers' tokens only); GRPO and RLOO, the completions' tokens."""
    if workload.objective in GENERATING:
        return workload.batch * workload.completion_tokens
    return sequences(workload) * (workload.seq - 1)


def head_tile(workload: Workload, e: int) -> int:
    """The fused head's buffer: min(tokens, 4,096) × 32,768 in the compute dtype."""
    return min(scored_tokens(workload), TILE_TOKENS) * TILE_VOCAB * e


def head_forward(workload: Workload, e: int) -> int:
    """The head's forward beside the backbone's: its buffer and the final hidden states it reads."""
    return head_tile(workload, e) + sequences(workload) * workload.seq * workload.model.hidden * e


def head_backward(workload: Workload, e: int, head_trains: bool) -> int:
    """The head's backward: its buffer, the input gradient in fp32 and cast, and the weight gradient the same way."""
    model = workload.model
    weight = model.vocab * model.hidden * (FP32_BYTES + e) if head_trains else 0
    return head_tile(workload, e) + scored_tokens(workload) * model.hidden * (FP32_BYTES + e) + weight


def layer_work(workload: Workload, e: int) -> int:
    """One layer's forward without gradients on the forward's sequences: a prefill's work (decoder/prefill.py) with
    the layer's K and V, as no cache holds them. The reference's layers run so, and a checkpointed policy's."""
    model = workload.model
    count, seq = sequences(workload), workload.seq
    return (count * seq * (prefill_per_token(model, e, workload.attention, seq) + 2 * model.kv_dim * e)
            + prefill_masks(model, e, workload.attention, count, seq))


def forward_work(workload: Workload, e: int) -> int:
    """The policy's forward beyond what it saves: its head's, or under checkpointing a layer's if larger."""
    checkpointed = workload.checkpointing is not Checkpointing.NONE
    return max(head_forward(workload, e), layer_work(workload, e) if checkpointed else 0)


def reference_forward(workload: Workload, e: int) -> int:
    """The reference's forward under no_grad: the larger of a layer's work and its head (as the policy's, with the
    scored tokens' hidden states)."""
    return max(layer_work(workload, e), head_forward(workload, e) + scored_tokens(workload) * workload.model.hidden * e)


def orpo_logits(workload: Workload, e: int) -> int:
    """ORPO's logits: the model's, whole (2 × pairs × seq × vocab)."""
    return sequences(workload) * workload.seq * workload.model.vocab * e


def orpo_chosen(workload: Workload, e: int) -> int:
    """The chosen half's logits but the last position's: the cross-entropy's contiguous copy, and its log-softmax."""
    return workload.batch * (workload.seq - 1) * workload.model.vocab * e


def orpo_saved(workload: Workload, e: int) -> int:
    """What ORPO's losses keep for the backward: the logits (the log-prob kernel saves them), the cross-entropy's
    log-softmax, and the kernel's fp32 log_z and expected logit per scored position."""
    return orpo_logits(workload, e) + orpo_chosen(workload, e) + sequences(workload) * (workload.seq - 1) * STATS_BYTES


def orpo_forward(workload: Workload, e: int) -> int:
    """The forward's worst beyond its saved bytes and the logits: the cross-entropy's copy beside them, or (under
    checkpointing) a layer's work, before the logits exist."""
    checkpointed = workload.checkpointing is not Checkpointing.NONE
    layer = layer_work(workload, e) - orpo_saved(workload, e) if checkpointed else 0
    return max(orpo_chosen(workload, e), layer)
