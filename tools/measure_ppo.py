"""Measure the peak bytes of TRL's PPO training step, phase by phase, for the golden tests.

A developer tool, not run by CI, built on tools/measure_peak.py's tracker and the small random-weight models of
tools/measure_reference.py (tokenizer and prompts as tools/measure_grpo.py makes them). It runs TRL's own
`PPOTrainer.train` (trl.experimental.ppo). TRL 1.16 has none: the tool runs TRL 1.9.0 (commit 35def3ee, the last
release checked to have it: trl/experimental/ppo/ppo_trainer.py, its helpers trl/experimental/utils.py `get_reward`
and trl/trainer/utils.py `selective_log_softmax` as that release has them), installed beside transformers 5.23:

    pip install --no-deps --target /work/ppotrl trl==1.9.0
    PYTHONPATH=/work/ppotrl python tools/measure_ppo.py

The policy is the causal LM, the value and reward models `AutoModelForSequenceClassification` (num_labels 1) of the
same config, all in bf16; the reference is TRL's (`create_reference_model`, a frozen copy) or, with LoRA
(`peft_config`), the policy with its adapters switched off. Prompts of `prompt` random one-token words, no stop token
(every response is response_length long), one PPO epoch of one mini-batch (the micro-batches of every epoch are
alike), AdamW with foreach (`torch.optim.AdamW`, as the Trainer makes it on a GPU). Two updates; the phases of the
second (each the worst of its micro-batches):

    generation  `generate` over each rollout chunk (local_rollout_forward_batch_size), scores kept (output_scores)
    pad         `pad` of the chunks' sequences and logits into one tensor each
    rollout     the generation logits' log-probabilities, chunk by chunk
    reference   the reference's no_grad forward over a chunk and its log-probabilities
    value       the value model's no_grad forward (`get_reward`)
    reward      the reward model's
    advantages  rewards, GAE, whitening
    forward     `PolicyAndValueWrapper`'s forward (value backbone and head, then the policy) and the loss
    backward    `accelerator.backward(loss)` to the moment the policy's final norm output has its gradient
    layers      the rest of the backward (the policy's layers, then the value model's)
    optimizer   `optimizer.step()` (a no-op but at the last micro-batch of a mini-batch)
    stats       the no_grad statistics after the step (softmax over the micro-batch's logits, entropy)

Usage: PYTHONPATH=/work/ppotrl python tools/measure_ppo.py [--out tests/golden/measured_ppo.json] [--only N ...]
Needs: pip install torch==2.13.0 transformers==5.23.0 peft datasets, and trl 1.9.0 as above
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# isort: off
import measure_reference as M
import measure_peak as P

import trl
from datasets import Dataset
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import AutoModelForSequenceClassification, PreTrainedTokenizerFast
from trl.experimental.ppo import ppo_trainer as pt
# isort: on

warnings.filterwarnings("ignore")
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")


M.FAMILIES["llama-1k"] = {**M.FAMILIES["llama"], "hidden_size": 1024, "intermediate_size": 2816}


class Tracker(P.PeakTracker):
    """Re-entering a phase (each micro-batch, each rollout chunk) keeps its worst instant; with `explain` (a phase
    name), what is live at that phase's worst instant of the measured update is kept for explain_peak."""

    def track(self, tensor):
        before = self.phases.get(self.phase, {}).get("peak")
        super().track(tensor)
        if self.explain and self.phase == f"2.{self.explain}" and self.phases[self.phase]["peak"] != before:
            self.at_phase_peak = [(self.sizes[k], *self.made.get(k, ("(before)", (), "", ""))) for k in self.sizes]

    def switch(self, name):
        old = self.phases.get(name)
        super().switch(name)
        new = self.phases.get(name)
        if old is not None and new is not old and old["peak"] > new["peak"]:
            new["peak"], new["peak_op"] = old["peak"], old["peak_op"]


ORIGINAL = {name: getattr(pt, name) for name in ("generate", "batch_generation", "forward", "selective_log_softmax",
                                                 "get_reward")}


def _tokenizer():
    """measure_preference.py's word-level tokenizer over the model's vocabulary, its padding token outside it: TRL
    masks that token (`forward`, `get_reward`: `query_responses != pad_token_id`), and a sampled one would give
    SDPA a padding mask (K and V repeated to every head, an additive mask saved); with none, every forward is
    causal alone, as FlashAttention-2 runs it whatever the padding."""
    tok = Tokenizer(models.WordLevel({**{f"w{i}": i for i in range(M.VOCAB)}, "<pad>": M.VOCAB}, unk_token="w1"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="w2", pad_token="<pad>", unk_token="w1")


def _dataset(tokenizer, prompt, rows=64):
    """measure_grpo.py's prompts: `prompt` random words that stay one token each, tokenized (nothing padded)."""
    generator = torch.Generator().manual_seed(0)
    single = torch.tensor([i for i in range(3, M.VOCAB) if len(tokenizer.tokenize(f"w{i}")) == 1])
    return Dataset.from_list([{"input_ids": single[torch.randint(0, len(single), (prompt,), generator=generator)]
                               .tolist()} for _ in range(rows)])


def measure_ppo(family, attention, batch, grad_accum, rollout_batch, prompt, response, lora=None, explain=False):
    dtype = torch.bfloat16
    policy, config = M.build(family, attention, dtype)
    hf_config = policy.config

    def classifier():
        torch.manual_seed(1)
        config = hf_config.__class__(**{**hf_config.to_dict(), "num_labels": 1})
        return AutoModelForSequenceClassification.from_config(config, dtype=dtype,
                                                              attn_implementation=M.ATTENTION[attention])
    value, reward = classifier(), classifier()
    peft_config = None
    if lora is not None:
        import measure_lora as L
        peft_config = L._lora_config(family, policy, *lora, 0.0)[0]
    tokenizer = _tokenizer()
    data = _dataset(tokenizer, prompt)
    args = pt.PPOConfig(output_dir=tempfile.mkdtemp(prefix="ppo-"), per_device_train_batch_size=batch,
                        gradient_accumulation_steps=grad_accum, local_rollout_forward_batch_size=rollout_batch,
                        response_length=response, num_ppo_epochs=1, num_mini_batches=1,
                        total_episodes=2 * batch * grad_accum, num_sample_generations=0, use_cpu=True, bf16=False,
                        fp16=False, report_to=[], save_strategy="no", seed=0)

    class Trainer(pt.PPOTrainer):
        def create_optimizer(self, model=None):  # foreach, as torch.optim picks on a GPU
            self.optimizer = P._optimizer("adamw", "foreach", [p for p in self.model.parameters() if p.requires_grad])
            return self.optimizer

    trainer = Trainer(args=args, processing_class=tokenizer, model=policy, ref_model=None, reward_model=reward,
                      train_dataset=data, eval_dataset=data, value_model=value, peft_config=peft_config)
    wrapper = trainer.accelerator.unwrap_model(trainer.model)
    params = list({id(p): p for p in wrapper.parameters() if p.requires_grad}.values())
    models = [wrapper, reward] + ([trainer.ref_model] if trainer.ref_model is not None else [])
    tracker = Tracker(explain=explain)
    for m in models:
        tracker.track_all(m.parameters())
        tracker.track_all(m.buffers())
    update, sizes = [0], []

    def at(name):
        tracker.switch(f"{update[0]}.{name}")

    def phase_of(function, name, after=None):
        def run(*a, **k):
            at(name(*a) if callable(name) else name)
            try:
                return function(*a, **k)
            finally:
                if after:
                    at(after)
        return run
    generate, batch_generation = ORIGINAL["generate"], ORIGINAL["batch_generation"]

    def tracked_batch_generation(model, queries, *a, **k):
        update[0] += 1
        out = batch_generation(model, queries, *a, **k)
        sizes.append((*queries.shape, out[0].shape[1] - queries.shape[1]))
        return out
    pt.batch_generation = tracked_batch_generation
    pt.generate = phase_of(generate, "generation", after="pad")
    # the reference's forward is the one under no_grad; the wrapper's, with gradients, starts a micro-batch
    pt.forward = phase_of(ORIGINAL["forward"], lambda model, *a: "forward" if torch.is_grad_enabled() else "reference")
    pt.selective_log_softmax = phase_of(  # the generation logits' (fp32), or within the forward that made them
        ORIGINAL["selective_log_softmax"], lambda logits, *a: "rollout" if logits.dtype == torch.float32
        else tracker.phase.split(".")[1])
    pt.get_reward = phase_of(ORIGINAL["get_reward"], after="advantages",
                             name=lambda model, *a: "value" if model is wrapper.value_model else "reward")
    backward = trainer.accelerator.backward

    def tracked_backward(loss, **kwargs):
        at("backward")
        return backward(loss, **kwargs)
    trainer.accelerator.backward = tracked_backward
    optimizer = trainer.optimizer
    step, zero_grad = optimizer.step, optimizer.zero_grad
    optimizer.step = phase_of(step, "optimizer")
    optimizer.zero_grad = phase_of(zero_grad, "optimizer", after="stats")
    norm = (wrapper.policy.get_base_model() if lora else wrapper.policy).model.norm

    def after_norm(module, args, output):
        if torch.is_grad_enabled() and output.requires_grad:
            output.register_hook(lambda grad: at("layers"))
    hook = norm.register_forward_hook(after_norm)
    try:
        with tracker, tracker.in_phase("0.start"):
            trainer.train()
    finally:
        hook.remove()
        for name, function in ORIGINAL.items():
            setattr(pt, name, function)
    if explain:
        tracker.at_peak, tracker.peak = tracker.at_phase_peak, tracker.phases[f"2.{explain}"]["peak"]
        P.explain_peak(tracker, top=int(os.environ.get('TOP', '60')))
    assert update[0] == 2 and all(size == (batch * grad_accum, prompt, response) for size in sizes), sizes
    assert "2.generation" in tracker.phases and "2.stats" in tracker.phases, sorted(tracker.phases)
    phases = {name.split(".", 1)[1]: v for name, v in tracker.phases.items() if name.startswith("2.")}
    measured = {"trainable_bytes": _bytes(params), "phases": phases,
                "peak_bytes": max(v["peak"] for v in phases.values()),
                "peak_phase": max(phases, key=lambda k: phases[k]["peak"])}
    measured["weight_bytes"] = {"policy": _bytes(wrapper.policy), "value": _bytes(wrapper.value_model),
                                "reward": _bytes(reward),
                                "reference": _bytes(trainer.ref_model) if trainer.ref_model is not None else 0}
    return config, measured


def _bytes(tensors):
    """Bytes of a model's parameters (a shared tensor once), or of a list of them."""
    tensors = tensors.parameters() if isinstance(tensors, torch.nn.Module) else tensors
    return sum(p.numel() * p.element_size() for p in {id(p): p for p in tensors}.values())


def ppo_plan():
    """(family, attention, batch, grad_accum, local_rollout_forward_batch_size, prompt, response, lora)."""
    return [
        ("llama", "flash", 4, 1, 64, 32, 64, None),
        ("llama", "flash", 2, 4, 64, 32, 64, None),  # a rollout batch of 8, micro-batches of 2
        ("llama", "flash", 2, 4, 4, 32, 64, None),  # the rollout in chunks of 4
        ("llama", "flash", 4, 2, 64, 64, 128, (8, "all-linear")),  # adapters off for the reference
        ("qwen3", "flash", 4, 1, 64, 32, 96, None),
        ("llama-1k", "flash", 2, 2, 2, 32, 64, None),
    ]


def _entry(family, attention, batch, grad_accum, rollout_batch, prompt, response, lora):
    return {"family": family, "attention": attention, "recipe": "bf16", "batch": batch, "grad_accum": grad_accum,
            "rollout_batch": rollout_batch, "prompt": prompt, "completion": response,
            "lora": {"rank": lora[0], "targets": lora[1]} if lora else None}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/golden/measured_ppo.json")
    parser.add_argument("--only", type=int, nargs="+", help="plan indices")
    parser.add_argument("--explain", metavar="PHASE", help="list what is live at that phase's peak")
    args = parser.parse_args(argv)
    cases = [case for index, case in enumerate(ppo_plan()) if not args.only or index in args.only]
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    result = {**M.provenance("tools/measure_ppo.py"), "trl": trl.__version__, "ppo": [], "skipped": []}
    for case in cases:  # measure_preference.py's run_plan, which imports TRL 1.16's kernels
        started = time.monotonic()
        try:
            config, measured = measure_ppo(*case, explain=args.explain)
        except Exception as error:
            result["skipped"].append({"case": list(case), "reason": f"{type(error).__name__}: {error}"})
            print("SKIPPED", case, repr(error), file=sys.stderr)
            continue
        result["ppo"].append({**_entry(*case), "config": config, **measured})
        print(case, measured["peak_phase"], {k: v["peak"] for k, v in measured["phases"].items()},
              f"{time.monotonic() - started:.1f}s", file=sys.stderr)
    M.write_json(args.out, result)

if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
