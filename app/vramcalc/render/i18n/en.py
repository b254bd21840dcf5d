"""The English catalogue: every sentence the page and the command line show, by key."""

from __future__ import annotations

from collections.abc import Mapping

EN: Mapping[str, str] = {
    # component labels
    "weights": "Weights",
    "gradients": "Gradients",
    "optimizer": "Optimizer state",
    "master_weights": "Master weights (fp32)",
    "kv_cache": "KV cache",
    "activations": "Activations",
    "logits": "Logits",
    "temporaries": "Step temporaries",
    "overhead": "Framework overhead",
    # the phases of a training step (step.py)
    "phase.forward": "end of the forward pass",
    "phase.loss": "start of the backward pass, at the loss gradient",
    "phase.backward_start": "backward through the last layer",
    "phase.backward_end": "end of the backward pass",
    "phase.optimizer": "optimizer step",
    "phase.reference": "the reference model's forward",
    "phase.generation": "generating the completions",
    "phase.kl": "the policy's forward over KTO's KL batch",
    "temporaries.kl": ("the policy's forward without gradients over KTO's KL batch (mismatched prompts and "
        "completions), the larger of one layer's work and its LM head = {bytes}"),
    "temporaries.generate": "generate's work: a layer's prefill or the sampled position's fp32 logits = {bytes}",
    "kv_cache.generate": (
        "transformers' cache while generating for {sequences} {sequences:sequence|sequences} = {bytes}"
    ),
    "kv_cache.vllm_colocate": "colocated vLLM's share: {utilization} × the GPU = {bytes} (from vLLM's source)",
    "temporaries.dpo_head": ("TRL's fused LM head: its tile of up to 4,096 tokens × 32,768 vocabulary entries and "
        "the final hidden states = {bytes}"),
    "temporaries.reference": ("the reference model's forward (no gradients; the old policy's too where TRL scores it: "
        "RLOO, and GRPO reusing its completions or under vLLM), "
        "the larger of one layer's work and its "
        "LM head = {bytes}"),
    "temporaries.dpo_backward": ("the fused LM head's backward: its tile and the fp32 gradients of its input and "
        "weight, with their casts = {bytes}"),
    "weights.reference": " + the reference model, a frozen copy = {bytes}",
    "weights.ppo": " + the value and reward models (each the backbone with a 1-output score) = {bytes}",
    "ppo.value": " + the value model's, trained with the policy = {bytes}",
    "temporaries.ppo_generate": ("the rollout's generation in chunks of {chunk}: the new tokens' fp32 scores, kept, "
        "stacked and padded into one tensor = {bytes}"),
    "temporaries.ppo_reference": ("the reference's forward over a chunk of {chunk} without gradients (its cache, "
        "hidden states and logits, or a layer's work; the value and reward models' are smaller) = {bytes}"),
    "temporaries.ppo_backward": "the head's backward: two logits-sized gradients and a response-sized one = {bytes}",
    "logits.ppo": ("The policy's logits ({batch} × {seq} × {vocab}), its hidden states and the saved log-softmax of "
        "the responses (under accumulation the previous micro-batch's too) = {bytes}, and the rollout's fp32 scores, "
        "kept through the update = {scores}"),
    "logits.orpo": ("ORPO's logits, whole: {sequences} {sequences:sequence|sequences} × {seq} × {vocab} = {logits}, "
        "the chosen half's log-softmax for its cross-entropy = {chosen}, and the log-prob kernel's fp32 statistics, "
        "in all {bytes}"),
    "temporaries.orpo_copy": "the chosen half's logits copied for the cross-entropy = {bytes}",
    "temporaries.orpo_backward": ("the losses' backward: the log-probabilities' and the cross-entropy's gradients, "
        "each the size of the logits, and their sum = {bytes}"),
    "logits.dpo": ("No logits: TRL's fused head keeps 8 B (fp32 log-normaliser and entropy) for each of "
        "{tokens} scored tokens = {bytes}"),
    "phase.line": "Step phase, {phase}: {total}",
    "phase.line.peak": "Step phase, {phase}: {total} (the peak, shown above)",
    "phase.live": "; at the peak ({phase}) {bytes} of it is live",
    "temporaries.inference": "none beyond the activations' peak",
    "temporaries.none": "none at this instant",
    "temporaries.prefill_window": "the prefill: sliding-window layers hold the whole prompt's K/V until the first "
                                  "new token = {bytes}",
    "temporaries.loss": "cross-entropy's backward: the fp32 gradients of nll_loss and log_softmax, live together, "
                        "2 × 4 B × {tokens} tokens × {vocab} vocabulary = {bytes}",
    "temporaries.chunk_upcast": "the loss's fp32 copy of its last chunk of logits = {bytes}",
    "temporaries.loss_chunk": "the chunked loss's backward, one of its {chunks} chunks at a time = {bytes}",
    "temporaries.backward": "one layer's backward: the gradients of its MLP's hidden tensors (about 3 × batch × seq "
                            "× MLP width){dequantised} = {bytes}{hidden}",
    "temporaries.hidden_gradient": ", and the hidden states' gradient = {bytes}",
    "temporaries.norm_backward": "the final norm's backward: five fp32 copies of the hidden states = {bytes}",
    "temporaries.layer_forward": "a checkpointed layer's forward at an MLP adapter: peft's fp32 cast, lora_B's "
                                 "output and its scaled copy beside the frozen output, the residual and the "
                                 "norm's output = {bytes}",
    "temporaries.recompute_forward": "a checkpointed layer's recompute at down's adapter: its MLP's input and "
                                     "output, its residual and the hidden states' gradient = {bytes}",
    "temporaries.in_backward": "the {optimizer} update of one tensor inside the backward (the optimizer steps "
                               "each gradient as it is made) = {bytes}",
    "field.framework.label": "Framework",
    "field.framework.help": "The program the fine-tuning runs under: its defaults fill the settings left at "
                            "theirs (a setting you change wins), and its mechanics apply.",
    "option.framework.trainer": "Hugging Face Trainer / TRL",
    "option.framework.unsloth": "Unsloth",
    "option.framework.torchtune": "torchtune",
    "option.framework.litgpt": "LitGPT",
    "option.framework.axolotl": "Axolotl",
    "note.framework.set": "{framework}'s defaults set {settings}; a setting you change wins.",
    "note.framework.unchanged": "{framework} changes no setting here: its defaults are the ones in the form.",
    "note.framework.unsloth": "Unsloth's checkpointing offloads each layer's input but the last to host memory, "
                              "from 512 tokens and above 2 MiB per input.",
    "note.framework.torchtune": "torchtune's layers are counted as transformers writes them. Its own repeat K and "
                                "V to every query head and keep one more fp32 copy in each RMSNorm: measured on its "
                                "Llama 3.2 layer, 7 to 16 % more saved per layer. torch.compile, on in its published "
                                "tables, is the compile setting.",
    "note.compile": "torch.compile: each layer keeps {bytes} B per token, {eager} B without it (measured on "
                    "transformers' Llama, Qwen2 and Qwen3 layers). The loss is counted as without it.",
    "note.compile_chunked": "torch.compile: each layer keeps {bytes} B per token, {eager} B without it (measured on "
                            "transformers' Llama, Qwen2 and Qwen3 layers), and the chunked loss is compiled too.",
    "assumption.compile": "torch.compile is measured for dense Llama-style layers with SDPA in bf16 or fp16, and "
                          "LoRA with 16-bit adapters on every linear's input, no dropout: here the layers are counted "
                          "as without it, more than the compiled step keeps",
    "field.ce_output_chunks.label": "Chunked output loss (torchtune), chunks",
    "field.ce_output_chunks.help": "The head makes the logits in this many chunks and the loss upcasts one at a time "
                                   "(torchtune's recipes: 8). 0: whole logits.",
    "field.bnb_version.label": "bitsandbytes version",
    "field.bnb_version.help": "Before 0.43.2 every 4-bit layer kept its input for the backward, its weight frozen or "
                              "not; before 0.45 it decodes slower (bnb-int8 about 1.7x, 4-bit a little). Empty: a "
                              "current one.",
    "note.bnb_old": "bitsandbytes {version}: the layers' 4-bit matmuls keep their inputs for the backward, "
                    "{bytes} B per token more over all layers (fixed in 0.43.2).",
    "field.quantise.label": "Quantised layers",
    "field.quantise.help": "All linear layers, or only the MLPs and experts with attention kept in 16-bit (Meta's FP8 "
                           "Llama 3.1 405B; modules_to_not_convert).",
    "option.quantise.all": "all linear layers",
    "option.quantise.mlp": "MLPs and experts only",
    "field.compile.label": "torch.compile (torchtune)",
    "field.compile.help": "Each layer compiled: it keeps fewer tensors for the backward and recomputes the rest.",
    "field.activation_offload.label": "Offload activations to host memory (torchtune, TRL)",
    "field.activation_offload.help": "Saved activations are copied to host memory in the forward and brought back for "
                                     "the backward; with checkpointing, the layer inputs. One GPU, supervised steps.",
    "activations.offload.hooks": "; offloaded to host memory (saved-tensor hooks, torchtune's and TRL's): on the "
                                 "GPU {forward} at the forward's end and {backward} while the layers' backward "
                                 "runs; at least {host} in host memory",
    "activations.offload.unsloth": "; Unsloth's offloaded checkpointing: the layer inputs but the last in host memory "
                                   "({host}), on the GPU {forward} at the forward's end, {backward} while a layer "
                                   "is recomputed, and two buffers of one layer input ({buffers}) for the whole step",
    "field.optimizer_in_backward.label": "Optimizer step inside the backward (torchtune)",
    "field.optimizer_in_backward.help": "Each gradient is applied and freed as soon as it is made: the whole "
                                        "gradient never exists. One GPU, no gradient accumulation.",
    "temporaries.dequantised": ", and the largest 4-bit matrix dequantised for its matmul ({bytes})",
    "temporaries.optimizer.foreach": "the foreach {optimizer} update: a copy of the whole second moment "
                                     "(torch._foreach_sqrt) = {bytes}",
    "temporaries.optimizer.for-loop": "the {optimizer} update, one tensor at a time: copies of the largest tensor "
                                      "= {bytes}",
    "temporaries.optimizer.fused": "the fused {optimizer} update makes no copies = {bytes}",
    # formulas in words
    "weights.formula": "{params} parameters × {bits} bits ({precision}) = {bytes}",
    "gradients.formula": "{params} parameters × {bits} bits (one gradient per weight, {precision}) = {bytes}",
    "gradients.none": "inference keeps no gradients",
    "optimizer.formula": "{params} parameters × {per_param} bytes ({optimizer}: {what}) = {bytes}",
    "optimizer.none": "inference keeps no optimizer state",
    "optimizer.sgd": "plain SGD keeps no state",
    "optimizer.state.adamw": "momentum + variance",
    "optimizer.state.adam": "momentum + variance",
    "optimizer.state.paged-adamw": "fp32 momentum + variance in paged memory",
    "optimizer.state.adamw-8bit": "8-bit momentum + variance with fp32 block scales",
    "optimizer.state.paged-adamw-8bit": "8-bit momentum + variance with fp32 block scales, paged",
    "optimizer.state.adafactor": "factored second moments",
    "optimizer.state.lion": "momentum",
    "optimizer.state.sgd-momentum": "momentum",
    "optimizer.paged": (
        "; paged: under memory pressure the state moves to host memory instead of failing, so the peak on the "
        "GPU can be lower, at the cost of speed. {bytes} of it is CUDA managed memory, which PyTorch's allocator "
        "does not count: torch.cuda.max_memory_allocated (and torchtune's logged peak) reads that much less"
    ),
    "weights.lora": " + LoRA adapters: {count} trainable parameters in {dtype} = {bytes}",
    "weights.autocast": " + autocast's 16-bit copies of the linear weights, kept through backward = {bytes}",
    "weights.format": "{format}: {parts} = {bytes}",
    "weights.vision": "; with the vision tower and projector: {params} parameters × {bits} bits = {bytes}{kept}",
    "weights.vision.mmproj": " (llama.cpp's mmproj file, f16)",
    "weights.vision.unquantized": " (kept unquantized, as quantized checkpoints keep it)",
    "weights.vision_off": "; the vision tower and projector ({params} parameters) left out: text only",
    "llamacpp.mmproj_ram": "; the mmproj in system RAM (--no-mmproj-offload)",
    "vllm.kv": (
        "{batch} × {tokens} tokens (whole {block}-token blocks) = {bytes} for the sequences asked; on this card "
        "vLLM's pool "
        "is {pool}: {pool_tokens} tokens, {concurrency} {concurrency:sequence|sequences} of {seq} tokens at once"
    ),
    "vllm.kv_state": (
        "{batch} × one recurrent state per sequence, whatever its length = {bytes}; {where}, vLLM's pool is {pool}: "
        "{concurrency} {concurrency:sequence|sequences} at once"
    ),
    "vllm.this_card": "on this card",
    "vllm.each_gpu": "on each of the {gpus} GPUs ({layout})",
    "vllm.kv_gpus": (
        "{batch} × {tokens} tokens (whole {block}-token blocks) = {bytes} for the sequences asked; on each of the "
        "{gpus} "
        "GPUs ({layout}) vLLM's pool is {pool}: {pool_tokens} tokens, {concurrency} {concurrency:sequence|sequences} "
        "of {seq} tokens at once"
    ),
    "vllm.peak": (
        "the activation peak of vLLM's profiling run: its sampler's [max_num_seqs {seqs}, vocabulary {vocab}] buffers, "
        "32 B per entry, + 1 GiB for the {batched}-token forward pass (fitted to published vLLM V1 logs) = {bytes}"
    ),
    "vllm.draft_buffers": (
        "; the draft speculator's buffers ({batched} {batched:row|rows} of token ids, positions and slots; vLLM "
        "allocates them outside its budget) = {bytes}, {total} in all"
    ),
    "vllm.draft_weights": "the draft model {name} in {precision} (the model's dtype): {bytes}",
    "vllm.draft_kv": (
        "with the draft model {name}'s layers in every block (they join the model's pool, in its cache type)"
    ),
    "vllm.drafter_kv": "the drafter keeps no cache: every layer reads one of the model's (KV sharing)",
    "transformers.assistant_weights": "the assistant model {name} in {precision}: {bytes}",
    "transformers.assistant_kv": "the assistant's own cache of {seq} tokens in {precision}: {bytes}",
    "transformers.assistant_logits": (
        "assisted generation: the model's fp32 logits for {rows} positions × vocabulary {vocab}, and the "
        "assistant's {drafted} kept scores × {draft_vocab} = {bytes}"
    ),
    "vllm.drafter_buffers": (
        "; the drafter speculator's buffers ({batched} {batched:row|rows} of the model's hidden states, token ids and "
        "positions; vLLM allocates them outside its budget) = {bytes}, {total} in all"
    ),
    "vllm.mtp_buffers": (
        "; the MTP proposer's buffers ({batched} {batched:row|rows} of hidden states, input embeddings, token ids, "
        "positions and "
        "slots; vLLM allocates them outside its budget) = {bytes}, {total} in all"
    ),
    "vllm.pooling_peak": (
        "the activation peak of vLLM's profiling run for a pooling model, which pools instead of sampling (no "
        "vocabulary-wide buffers): about 1 GiB for the {batched}-token forward pass (fitted to published vLLM V1 "
        "logs) = {bytes}"
    ),
    "vllm.encoder_video": (
        "; the profiling run first encodes {items} dummy {items:video|videos} of {pairs} frame pairs, {tokens} tokens, "
        "about {bytes} (estimated), their outputs ({outputs}) kept through the forward: peak {peak}"
    ),
    "note.vllm_mm_profile": ("vLLM encodes dummy images (or videos) of the most tokens when it starts, for text "
                             "requests too, and sizes its KV pool after them: 'text only' (--language-model-only) "
                             "skips the vision part and them."),
    "vllm.encoder": (
        "; the profiling run first encodes {items} dummy {items:image|images} of {tokens} tokens, about {bytes} "
        "(estimated), "
        "their outputs ({outputs}) kept through the forward: peak {peak}"
    ),
    "vllm.logits": "in the activation peak (the sampler's buffers)",
    "vllm.overhead": (
        "non-torch memory (CUDA context, cuBLAS, NCCL: 0.14 GiB in vLLM V1's logs) + CUDA graphs (0.4 GiB, "
        "none with --enforce-eager: {eager}) = {bytes}"
    ),
    "llamacpp.split": (
        "{gpu} of {layers} layers on the GPU{output}; token embeddings and the rest in system RAM: {host}"
    ),
    "llamacpp.no_output": " (the output layer in system RAM)",
    "llamacpp.draft_weights": "the draft model {name} in {format}: {bytes} on the GPU",
    "llamacpp.draft_kv": "the draft's own context, as many cells, in {type}: {bytes}",
    "llamacpp.drafter_kv": (
        "the drafter keeps no cache: it reads the model's (llama.cpp shares the target's memory "
        "with a gemma4-assistant draft context)"
    ),
    "llamacpp.draft_compute": "the draft's compute buffer: {bytes}",
    "llamacpp.mtp_weights": (
        "with the {layers} MTP {layers:layer|layers} llama-server loads for --spec-type draft-mtp (blk.{first})"
    ),
    "llamacpp.mtp_kv": (
        "the MTP context's own cache: {layers} MTP {layers:layer|layers} × {n_seq} × {n_ctx} cells in {type} "
        "(-ctkd/-ctvd) = "
        "{bytes} on the GPU, {host} in system RAM"
    ),
    "llamacpp.mtp_compute": "the MTP context's compute buffer ({n_out} logits {n_out:row|rows}): {bytes}",
    "llamacpp.kv": (
        "{n_seq} × {n_ctx} cells (the context padded to 256) × K {k} and V {v}, sliding layers capped at the window "
        "plus one micro-batch = {bytes} on the GPU, {host} in system RAM"
    ),
    "llamacpp.kv_no_window": "; llama.cpp reads no window for this architecture: every layer keeps the whole context",
    "llamacpp.kv_state": (
        "; of it, {layers} recurrent layers' F32 state of {state} per sequence (llama_memory_recurrent)"
    ),
    "llamacpp.kv_msa": (
        "; of it, the indexer cache of {layers} sparse {layers:layer|layers} (llama_kv_cache_msa): a key of {key} "
        "values at K's type and an unused value of {value} at V's type per cell, {bytes} per sequence"
    ),
    "llamacpp.embedding_compute": (
        "the compute buffer llama.cpp reserves for its --embedding graph of {n} tokens and {seqs} sequences (flash "
        "attention {flash}): the inputs, the tokens × tokens mask, and attention's moment or the FFN's, whichever is "
        "larger (measured to the byte on a CPU build) = {bytes}"
    ),
    "llamacpp.compute": (
        "the compute buffer llama.cpp reserves for a {n_ub}-token micro-batch (flash attention {flash}): the larger of "
        "the attention scores and the logits of {n_out} {n_out:row|rows}{copy} = {bytes}"
    ),
    "llamacpp.clip": (
        "; + the mmproj's compute buffer for an image of {patches} patches (at least clip.cpp's warmup image; "
        "estimated){ram} = {bytes}"
    ),
    "llamacpp.clip_ram": ", in system RAM",
    "llamacpp.op_offload": (
        ", with a copy of the largest weight in system RAM ({bytes}), which it multiplies on the GPU for micro-batches "
        "of 32 tokens or more (op offload)"
    ),
    "llamacpp.logits": "in the compute buffer",
    "llamacpp.overhead": "GPU context and driver (CUDA or ROCm), as Ollama reserves it (457 MiB) = {bytes}",
    "llamacpp.overhead_metal": "GPU context and driver (Metal), as Ollama reserves it on a Mac (512 MiB) = {bytes}",
    "master_weights.formula": "{params} parameters × 4 bytes (fp32 copy kept by mixed precision) = {bytes}",
    "master_weights.none": "only with mixed-precision training",
    "kv_cache.formula": "{batch} × ({layers}) × {bits} bits ({precision})",
    "kv_cache.layers.full": "{count} {count:layer|layers} × {per_token} × {kept} tokens",
    "kv_cache.layers.sliding": "{count} sliding {count:layer|layers} × {per_token} × {kept} tokens (window {window})",
    "kv_cache.layers.chunked": "{count} chunked {count:layer|layers} × {per_token} × {kept} tokens (chunk {window})",
    "kv_cache.layers.cross": (
        "{count} cross-attention {count:layer|layers} × {per_token} × {kept} vision tokens ({images} "
        "{images:image|images}, each its tiles' patches and class tokens, whatever the text's length)"
    ),
    "kv_cache.indexer": " + {batch} × the lightning indexer's keys ({head_dim} values per token and layer): {bytes}",
    "kv_cache.linear": (
        " + {batch} × {count} linear-attention layers × a fixed {state} (fp32 recurrent state + convolution window)"
    ),
    "kv_cache.mamba": (
        " + {batch} × {count} Mamba layers × a fixed {state} (fp32 SSM state + convolution window)"
    ),
    "kv_cache.no_attention": "0 (no layer attends)",
    "kv_cache.conv": " + {batch} × {count} convolution layers × a fixed {state} (their last inputs)",
    "kv_cache.cca": " + {batch} × {count} layers × a fixed {state} (CCA's convolution window over q and k and the "
                    "previous token's value half)",
    "kv_cache.kv_width_v": "{kv_heads} KV heads × ({head_dim} for K + {v_dim} for V)",
    "kv_cache.kv_width": "2 (K and V) × {kv_heads} KV heads × {head_dim}",
    "kv_cache.k_is_v": "one head of {head_dim} (its keys are its values)",
    "kv_cache.layers.compressed": (
        "{values} values of the compressors (an entry per {csa} tokens with the indexer's key, per {hca} tokens, "
        "and the unfinished windows)"
    ),
    "kv_cache.mla_width": "an MLA latent of {width}",
    "kv_cache.none": "training runs without a KV cache",
    "kv_cache.speech": (
        "{rows} {rows:row|rows} (windows × beams) × {layers} decoder layers: cross-attention K and V over {frames} "
        "frames, self-attention over {tokens} tokens = {bytes}"
    ),
    "activations.speech": (
        "generate over {batch} {batch:window|windows} × {beams} {beams:beam|beams}, measured with transformers: the "
        "encoder's moment "
        "{encode}, the decoder's {decode} (with its cache); the log-mel features of {windows} "
        "{windows:window|windows} per "
        "audio {features} = {bytes}"
    ),
    "logits.speech": "each step's logits are counted in the decoder's moment",
    "weights.whisper_cpp": (
        "whisper.cpp: matrices in {type}, convolutions in {conv}, positions, norms and biases in f32 = "
        "{bytes}"
    ),
    "kv_cache.whisper_cpp": (
        "whisper.cpp: kv_self {self_bytes} (its cells × (decoders + 2) with {beams} beams and best_of 5), "
        "kv_cross {cross}, kv_pad {pad} = {bytes}"
    ),
    "activations.whisper_cpp": (
        "whisper.cpp's compute buffers (ggml's allocator over each graph, flash attention {flash}): conv {conv}, "
        "encode {encode}, cross {cross}, decode {decode} = {bytes}"
    ),
    "note.whisper_cpp": (
        "A Whisper model on llama.cpp is counted as whisper.cpp runs it, its compute buffers in ggml's graph "
        "order on CUDA; Metal and Vulkan reorder the encoder's graphs and hold more."
    ),
    "kv_cache.encoder": "an encoder keeps no KV cache",
    "llamacpp.input_ram": "; less the input layer (embeddings) in RAM: {bytes}",
    "logits.reranker": (
        "the logits of all {tokens} positions, which AutoModelForCausalLM computes before the last one's are read, "
        "beside the final norm's output: {tokens} × (vocabulary {vocab} + width {hidden}) × {e} B = {moment} "
        "(measured); above the layers' peak: {bytes}"
    ),
    "logits.embedding": "one vector (or score) per sequence: no logits",
    "activations.alibi": " + the ALiBi table JinaBERT's code builds at load, {heads} × {side}² values = {bytes}",
    "activations.rotary_cache": " + the cos and sin GTE's code builds at load, 2 × {rows} × {width} values = {bytes}",
    "activations.embedding_vllm": (
        "one step of {tokens} tokens (max_num_batched_tokens) in vLLM's pooling runner: the requests flattened, "
        "FlashAttention over each one's span, no seq × seq term; read from vLLM's source = {bytes}"
    ),
    "activations.embedding": "one forward of {batch} × {seq} tokens ({engine}), measured with transformers = {bytes}",
    "activations.training": (
        "{batch} × {seq} tokens × ({layers_kept} {full:layer|layers} × {per_layer} B/token/layer{recompute} "
        "+ {outside} B/token outside the layers){constant} = {bytes}; {attention} attention, {checkpointing}"
    ),
    "activations.recompute": " + 1 layer recomputed in backward at {per_layer_full} B/token",
    "activations.average": "{average} (average of dense and MoE layers)",
    "activations.constant": " + {constant_bytes} shared by the batch (rotary tables, positions)",
    "activations.inference": (
        "peak of one layer during a {seq}-token prefill: {batch} × {seq} tokens × {per_token} B/token "
        "({attention} attention) = {bytes}; layers run one after another, so only one layer's temporaries are live"
    ),
    "logits.fused": (
        "fused cross-entropy (Liger): the logits of {chunk} tokens at a time × {vocab} vocabulary × (fp32 + compute "
        "type), plus the fp32 gradient of the {tokens} tokens' hidden states = {bytes}"
    ),
    "logits.chunked": (
        "torchtune's chunked output ({chunks} chunks): {tokens} tokens × {vocab} vocabulary × {per_value} B (each "
        "chunk's fp32 log-softmax kept for the loss + the {precision} logits, deleted after it) = {bytes}"
    ),
    "logits.chunked_compiled": (
        "torchtune's chunked output ({chunks} chunks), its loss compiled: {tokens} tokens × {vocab} vocabulary × {e} B "
        "(the {precision} logits the compiled loss keeps) + 8 B per token = {bytes}"
    ),
    "logits.training": (
        "{batch} × {seq} tokens × {vocab} vocabulary × {per_value} B "
        "(fp32 log-softmax kept for the loss + the {precision} logits returned) = {bytes}"
    ),
    "logits.inference": "{batch} × {vocab} vocabulary × 4 B (fp32 logits of the last position only) = {bytes}",
    "overhead.default": (
        "CUDA context, cuBLAS workspaces and allocator slack: {gib} GiB, transformers' default where none is "
        "published for the card (not a measurement)"
    ),
    "overhead.card": (
        "CUDA context and loaded kernels {context} ({basis}) + cuBLAS workspace {workspace} = {bytes}, "
        "transformers' default on {arch} cards"
    ),
    "overhead.basis.runs": "median of {runs} published {runs:run|runs}",
    "overhead.basis.bare": "the published bare context, above the median of {runs} runs",
    "overhead.reserve": "with {bytes} that other programs already hold on the GPU (reserve_gb)",
    "overhead.given": "{bytes}, set by you ({runtime}'s default: {default})",
    "overhead.formula": "CUDA context, cuBLAS workspaces and allocator slack: {gib} GiB, set by you (default 1 GiB)",
    # checkpointing and attention in words
    "checkpointing.none": "no checkpointing",
    "checkpointing.layer": "per-layer checkpointing (layer inputs kept)",
    "checkpointing.sqrt": "sqrt(L) checkpointing: {segments} segments of {segment_layers} layers",
    "attention.eager": "eager",
    "attention.flash": "flash",
    # notes
    "note.counter": (
        "Read against nvidia-smi, which counts the overhead row (torch.cuda.max_memory_allocated: the total less "
        "that row) and the allocator's free reserved blocks, left out here: 0–51 % of the allocated memory in "
        "published out-of-memory reports (median 1.9 %)."
    ),
    "note.counter_reserved": (
        "Read against nvidia-smi, which counts the overhead row and the allocator's reserve: "
        "torch.cuda.max_memory_reserved would show about {reserved} ({low} to {high} of reserve, simulated), "
        "nvidia-smi about {smi}."
    ),
    "note.no_bf16_fp32": (
        "The {gpu} (compute capability 7.5) has no bfloat16, and vLLM refuses float16 for {model_type} (numerical "
        "instability, config/model.py): it loads the model in float32, twice the weights' bytes shown here. Give "
        "precision fp32 to count that."
    ),
    "note.dequantised_fp8": (
        "transformers runs {format} weights on compute capability 8.9 and later (Ada, Hopper, Blackwell) only: on the "
        "{gpu} ({capability}) it dequantises a checkpoint published in FP8 to bf16 as it loads (and keeps a 16-bit one "
        "unquantised), so the weights are counted at 16 bits here. vLLM keeps FP8 weights on 7.5 and later (Marlin)."
    ),
    "note.mxfp4_kernels": (
        "transformers keeps MXFP4 weights only where the kernels package (kernels 0.18.2 or later, before kernels "
        "0.19, for transformers 5.23) and Triton 3.4 or later (Triton 3.5 on XPU and the CPU) are installed: without "
        "them it dequantises them to bf16 as it loads, {bf16} of weights instead of {kept} (quantizer_mxfp4.py). On a "
        "64 GB Strix Halo, AMD's playbook ran out of memory until kernels was pinned (amd/playbooks #792, #882)."
    ),
    "note.dequantised_mxfp4": (
        "transformers runs {format} weights on CUDA (compute capability 7.5 and later), XPU and the CPU only: on the "
        "{gpu} ({capability}) it dequantises them to bf16 as it loads, so the weights are counted at 16 bits here."
    ),
    "note.no_bf16": (
        "The {gpu} (compute capability 7.5) has no bfloat16: Unsloth picks float16 there, transformers' Trainer "
        "refuses bf16 training, and vLLM casts a bf16 checkpoint to float16 (Gemma 2 and 3 to float32) and refuses "
        "--dtype bfloat16. float16 is 2 bytes too, so the memory is as shown; the speed is the FP16 rate."
    ),
    "note.bnb_experts": (
        "transformers 5 converts only nn.Linear layers to bitsandbytes: the routed experts, stored as fused "
        "tensors, stay in bf16 (bitsandbytes#1849; transformers 4 and Unsloth convert them)."
    ),
    "note.seq_over_context": "Sequence length {seq:,} is longer than the model's context of {context:,} tokens.",
    "note.weights_file": "The weights are {name} as its header lists them: {bytes}, tensor by tensor.",
    "note.weights_file_apart": (
        "The file also holds {bytes} of tensors this answer does not count: a vision or audio tower, or "
        "multi-token-prediction layers, which engines load only when asked to."
    ),
    "note.moe": "Mixture of experts: all {total} parameters are held in memory; {active} are used per token.",
    "note.gte_remote": (
        "GTE's hub code (model_type new, trust_remote_code) runs under transformers 5 with eager attention whatever "
        "attn_implementation asks: its scores grow with the square of the sequence."
    ),
    "note.encoder_training": "Training an encoder is estimated as a decoder's step; its inference forward is measured.",
    "note.ppo": ("PPO: the value and reward models are taken to be the policy's architecture, as TRL's example loads "
        "them; attention as FlashAttention-2 runs it (SDPA with padded prompts repeats K and V and keeps a mask)."),
    "note.quantised": (
        "{precision} weights: nominal {bits} bits per weight, without quantisation scales (+0.1–0.5 bit in GPTQ, AWQ, "
        "GGUF)."
    ),
    "note.assumption": "Assumed: {text}",
    "note.videos": (
        "{videos} {videos:video|videos} of {seconds} s, frames of {width} × {height} pixels taken at {fps} per second, "
        "per request became {tokens:,} {tokens:token|tokens} of each sequence, counted in its length"
    ),
    "note.images": (
        "{images} {images:image|images} of {width} × {height} pixels per request became {tokens:,} "
        "{tokens:token|tokens} of each sequence, counted in its length (the KV cache and the prefill)"
    ),
    "note.mla": (
        "Multi-head latent attention: the cache keeps one compressed latent per token and layer, as vLLM, "
        "SGLang, llama.cpp and Hugging Face transformers (5.15 and later) do; older transformers releases "
        "cached decompressed per-head keys and values, about 70 times more."
    ),
    "note.linear_training": (
        "Linear-attention layers: the activations are what transformers saves with its own PyTorch kernels "
        "(measured); with the flash-linear-attention kernels installed, much of it is recomputed instead."
    ),
    "note.llamacpp_rpc": (
        "A Mac has one GPU: several Macs run one model through llama.cpp's RPC backend (rpc-server on each, --rpc on "
        "the one that serves), each holding its share of the layers as shown; the network between them is not in "
        "the speed."
    ),
    "note.no_experts_to_move": (
        "This model has no routed experts: --n-cpu-moe and --cpu-moe move nothing to system RAM (they match the "
        "ffn_*_exps tensors only). Keep layers in RAM with --gpu-layers instead."
    ),
    "note.ollama": (
        "Ollama runs llama.cpp with defaults of its own: a context of 4,096 tokens (v0.6.7 to v0.15.4; since v0.15.5 "
        "chosen by VRAM: 4,096 under 23 GiB, 32,768, or 262,144 from 47 GiB) and one sequence at a time; "
        "llama-server gives 4 slots one shared context. Set the sequence length and parallel sequences to match."
    ),
    "note.vllm_fit": (
        "vLLM claims its utilization share of the card whatever the request: the table below shows what the "
        "requested sequences need; the pool and concurrency above are what vLLM would run on the chosen card."
    ),
    "note.native_format": "The published checkpoint stores {format}; the weights above are in the precision chosen.",
    "note.native_format_used": (
        "The weights are the checkpoint as published: {format}. Choose a format to size it otherwise."
    ),
    "note.gguf_mxfp4_experts": (
        "gpt-oss GGUF files keep the experts in MXFP4 as published, whatever their type (ggml-org's MXFP4, "
        "unsloth's and bartowski's Q4_K_M, Q8_0 and F16 alike): the type sets only attention, embeddings and head. "
        "Stock llama-quantize would re-quantise the experts only with --allow-requantize."
    ),
    "assumption.training_unmeasured": (
        "training activations of {model_type} layers are estimated with the Llama-style terms and have not been "
        "checked against a measured run (weights, gradients, optimizer state and the KV cache are exact)"
    ),
    "assumption.mamba_activations": (
        "the prefill's temporaries in the recurrent layers (Mamba, short convolutions, Kimi Delta Attention) are "
        "estimated, not measured (weights, the KV cache and the recurrent state are exact)"
    ),
    "assumption.altup_activations": (
        "the prefill's temporaries of Gemma 3n's AltUp streams, Laurel blocks and per-layer inputs are estimated, not "
        "measured (the KV cache is exact)"
    ),
    "assumption.kv_shared_weights": (
        "this engine also loads the K/V weights of the {count} layers that reuse an earlier layer's K/V, which "
        "transformers does not build: {params} parameters more than the weights shown"
    ),
    "assumption.dsv4_activations": (
        "the temporaries of DeepSeek-V4's compressors, indexer and hyper-connections are estimated, not measured "
        "(weights and the KV cache are exact)"
    ),
    "assumption.hy4": (
        "the temporaries of Hy4's {streams} residual streams are estimated, not measured, and transformers keeps "
        "{params} of its parameters (the head, the streams' mixing weights, sinks, indexer weights) in fp32, counted "
        "here at the weights' precision"
    ),
    "assumption.hy4_vllm": (
        "vLLM's own sources (as stored) have no Hy4 model: its cache is read as a plugin's (vllm_fl) keeps it, "
        "GLM-5.2's: the MLA latent on every layer and DeepseekV32IndexerCache on the indexer_types \"full\" layers"
    ),
    "assumption.dsv4_vllm": (
        "vLLM keeps DeepSeek-V4's cache in fp8 only (fp8_ds_mla, 584 bytes per 512-wide entry), its windows, "
        "compressed entries and compressor states in pages of their own: here it is estimated from transformers' "
        "shapes at the cache precision chosen"
    ),
    "assumption.llamacpp_pipeline": (
        "llama.cpp runs every layer on several GPUs with pipeline parallelism, whose scheduler keeps copies of the "
        "compute buffers: measured 1.25-2.3x the compute row here on two devices; the weights and cache are exact"
    ),
    "assumption.llamacpp_unsupported": (
        "llama.cpp has no architecture for {model_type}: no GGUF of it runs; the answer is what one would take"
    ),
    "assumption.lora_moe_experts": "LoRA all-linear on a mixture of experts adapts the attention and dense / shared "
                                   "MLP linears here; peft 0.21 on transformers 5 also wraps the fused expert "
                                   "tensors and the router (ParamWrapper), which this count leaves out.",
    "assumption.lora_activations": (
        "LoRA on this architecture: the activations are counted as in full fine-tuning, not checked against a "
        "measured run (dense RMSNorm models are); frozen layers keep no input for their weights' gradients, so the "
        "real figure is somewhat lower"
    ),
    "approximate.title": "Approximate: this configuration is not fully understood",
    # ------------------------------------------------------------ the page (index.html, main.py, present.py)
    "page.title": "GPU VRAM calculator for transformers",
    "page.heading": "Will it fit? GPU VRAM calculator",
    "page.lead": (
        "How much GPU memory a transformer needs to run or train, component by component. Everything is computed "
        "in your browser by Python; nothing you enter leaves this page."
    ),
    "page.update": "A new version of this page is ready.",
    "page.reload": "Reload",
    "page.status.booting": "Starting Python… the numbers below are already correct for the default settings.",
    "page.status.progress": (
        "Starting Python ({n}/4): {step}… the numbers below are already correct for the default settings."
    ),
    "boot.1": "downloading the runtime",
    "boot.2": "starting the interpreter",
    "boot.3": "loading the calculator",
    "boot.4": "connecting the form",
    "page.status.ready": "Python is running: results update as you type.",
    "page.copy_link": "Copy link",
    "page.copied": "Link copied.",
    "page.copy_failed": "Copy the address bar to share this configuration.",
    "page.stale": "These results are for your last valid input.",
    "page.stale_fields": "To fix: {fields}.",
    "page.stale_short": " (out of date)",
    "page.stale_boot": (
        "Python is still starting: these results are for the settings before your changes; they follow them once it is "
        "ready."
    ),
    "page.remembered_ignored": "Ignored the card remembered in this browser: {problem}",
    "page.start_error": (
        "Part of the link or of this browser's remembered card could not be read ({kind}); it was ignored."
    ),
    "page.imported": "Imported: {name}",
    "page.internal_error": (
        "Something went wrong in the calculator ({kind}); the numbers shown are for your last working input. "
        "Please report it with the link."
    ),
    "page.footer": (
        "Sizes: GB = 10⁹ bytes, GiB = 2³⁰ bytes. Runs offline once loaded; your inputs stay in the page and its link."
    ),
    "legend.model": "Model",
    "legend.workload": "Workload",
    "legend.training": "Training",
    "field.model_search.label": "Find a model",
    "field.model_search.help": "Type part of a name or a Hugging Face id; {count} models, grouped by family.",
    "model_search.found": "{count} match; showing {first}.",
    "model_search.found_many": "{count} matches; showing the best, {first}.",
    "model_search.none": "No model matches; the list shows all of them.",
    "model_search.base": (
        "No preset of its own: a fine-tune or base checkpoint has its model's architecture, so this is {first}."
    ),
    "model.facts": "{hf_id} · {params} parameters · context {context} · {architecture}",
    "model.facts.native": " · checkpoint: {format}",
    "field.model.label": "Model",
    "field.model.help": "A preset, your own numbers, or a Hugging Face config.json (below).",
    "field.params.label": "Parameters (billions)",
    "field.params.help": "Total parameters, e.g. 7 for a 7B model. Required.",
    "field.hidden.label": "Hidden size",
    "field.hidden.help": "Model width, e.g. 4096. Required.",
    "field.layers.label": "Layers",
    "field.layers.help": "Transformer layers, e.g. 32. Required.",
    "field.heads.label": "Attention heads",
    "field.heads.help": "Optional; default hidden / 128.",
    "field.kv_heads.label": "KV heads",
    "field.kv_heads.help": "Optional; default = heads (multi-head attention).",
    "field.vocab.label": "Vocabulary",
    "field.vocab.help": "Optional; default 32,000.",
    "field.ffn.label": "FFN size",
    "field.ffn.help": "Optional; default about 8 × hidden / 3.",
    "field.mode.label": "Mode",
    "field.precision.label": "Weight precision",
    "field.precision.help": (
        "How the weights are stored. GGUF types are sized tensor by tensor as llama.cpp's quantizer writes them; "
        "GPU formats include their scales and zero points; the nominal int8/int4/int2 count bits only."
    ),
    "format_group.nominal": "Nominal (every parameter, no scales)",
    "format_group.gguf": "GGUF (llama.cpp, Ollama, LM Studio)",
    "format_group.gpu": "GPU formats (vLLM, transformers)",
    "format_group.exl": "EXL2 / EXL3 bits per weight",
    "format_group.native": "The checkpoint's native format",
    "format_group.auto": "As published (its own format where quantised, else bf16)",
    "gpu_group.cards": "Graphics cards",
    "gpu_group.apple": "Apple Silicon (unified memory, GPU share)",
    "field.wired_limit_mb.label": "iogpu.wired_limit_mb (MiB)",
    "field.wired_limit_mb.help": (
        "macOS lets the GPU wire only part of the memory (Metal's recommendedMaxWorkingSetSize); "
        "`sudo sysctl iogpu.wired_limit_mb=N` raises it. Empty or 0: the default."
    ),
    "field.macos.label": "macOS version",
    "field.macos.help": "The default share changed in macOS 26 (about 3/4 of RAM before, 74–84 % from 26 on).",
    "field.recipe.label": "Training recipe",
    "field.recipe.help": (
        "How weights, gradients and optimizer state are kept: fp32; pure bf16 (Adam state in bf16 too); amp = fp32 "
        "weights under autocast (Hugging Face Trainer's bf16=True); mixed = 16-bit weights with fp32 gradients and "
        "master copy (Megatron, DeepSpeed: 18 B per parameter with Adam)."
    ),
    "option.recipe.": "weights in the precision above (+ master copy if ticked)",
    "option.recipe.fp32": "fp32",
    "option.recipe.bf16": "pure bf16 / fp16",
    "option.recipe.amp": "amp: fp32 weights, autocast",
    "option.recipe.mixed": "mixed: 16-bit weights, fp32 grads + master",
    "option.optimizer.adamw-8bit": "AdamW 8-bit (bitsandbytes)",
    "option.optimizer.paged-adamw-8bit": "paged AdamW 8-bit",
    "option.optimizer.paged-adamw": "paged AdamW",
    "option.optimizer.adafactor": "Adafactor",
    "option.optimizer.lion": "Lion",
    "field.lora_rank.label": "LoRA rank",
    "field.lora_rank.help": "0: full fine-tuning. With nf4 or nf4-dq weights: QLoRA.",
    "field.lora_targets.label": "LoRA targets",
    "field.lora_targets.help": ("all-linear (every linear layer but the LM head), all-linear,head, or some of "
        "q,k,v,o,gate,up,down,head (comma-separated; head: LoRA on the LM head, litgpt's lora_head)."),
    "field.lora_dropout.label": "LoRA dropout",
    "field.lora_dropout.help": (
        "peft's lora_dropout (0 by default): above 0, each adapted layer keeps a mask and a copy."
    ),
    "field.lora_dtype.label": "Adapter dtype",
    "field.lora_dtype.help": "peft upcasts adapters to fp32 by default, and so does Unsloth; torchtune and LitGPT keep "
                             "them in bf16.",
    "option.lora_dtype.fp32": "fp32 (peft's default)",
    "option.lora_dtype.bf16": "bf16",
    "option.lora_dtype.fp16": "fp16",
    "field.lora_embeddings.label": "Also train the embeddings and head",
    "field.lora_embeddings.help": "In full, as peft's modules_to_save does.",
    "field.grad_accum.label": "Gradient accumulation",
    "field.grad_accum.help": "Steps per update; memory follows the micro-batch (the batch size above).",
    "field.objective.label": "Objective",
    "field.objective.help": ("sft: supervised fine-tuning; dpo: TRL's DPO, chosen and rejected answers in one forward; "
        "grpo: TRL's GRPO, completions generated then scored (the batch counts completions); rloo: TRL's RLOO, GRPO's "
        "step with the old policy scored at each generation and a reference by default; kto: TRL's KTO, unpaired "
        "completions marked desirable or not (the batch counts them, at least 2), with a KL batch of mismatched "
        "pairs; orpo: TRL's ORPO, chosen and rejected answers in one forward, no reference model; ppo: TRL's PPO, "
        "batch × accumulation prompts rolled out, then the policy and a value model trained, reference and reward "
        "models beside."),
    "option.objective.sft": "Supervised (SFT)",
    "option.objective.dpo": "Preference (DPO)",
    "field.reference.label": "Reference model (DPO, KTO, GRPO, RLOO, PPO)",
    "field.reference.help": (
        "A frozen copy, the policy with its adapters off (LoRA), or log-probabilities computed "
        "beforehand."
    ),
    "option.reference.": "as TRL chooses",
    "option.reference.copy": "a frozen copy",
    "option.reference.adapters-off": "adapters switched off",
    "option.reference.precomputed": "precomputed",
    "option.reference.none": "none (GRPO, RLOO: beta 0)",
    "option.objective.grpo": "Reinforcement (GRPO)",
    "option.objective.rloo": "Reinforcement, leave-one-out (RLOO)",
    "option.objective.kto": "Unpaired preference (KTO)",
    "option.objective.orpo": "Preference without a reference (ORPO)",
    "option.objective.ppo": "Reinforcement with a value model (PPO)",
    "field.local_rollout_forward_batch_size.label": "Rollout chunk",
    "field.local_rollout_forward_batch_size.help": "PPO's local_rollout_forward_batch_size: prompts generated and "
        "scored at once (64).",
    "field.num_ppo_epochs.label": "PPO epochs",
    "field.num_ppo_epochs.help": "Passes over each rollout, an optimizer step each (4); the memory stays as it is.",
    "field.num_generations.label": "Completions per prompt",
    "field.num_generations.help": (
        "GRPO's and RLOO's num_generations (empty: TRL's, 8 for GRPO and 2 for RLOO); it must divide batch × "
        "GPUs × accumulation (or × steps per generation), and leaves the memory as is."),
    "field.completion_tokens.label": "Completion tokens",
    "field.completion_tokens.help": ("GRPO's and RLOO's max_completion_length, PPO's response_length (TRL's 53), part "
        "of the sequence length."),
    "field.num_iterations.label": "Updates per generation",
    "field.num_iterations.help": ("TRL's num_iterations (μ): each batch of completions is trained on this many times; "
        "above 1 the old policy is scored without gradients after generating."),
    "field.steps_per_generation.label": "Steps per generation",
    "field.steps_per_generation.help": ("TRL's steps_per_generation: micro-steps one generation serves (empty: the "
        "accumulation); the generation batch is the batch × this."),
    "field.rollout.label": "Generation",
    "field.rollout.help": "What generates GRPO's and RLOO's completions.",
    "option.rollout.transformers": "transformers generate",
    "option.rollout.vllm-colocate": "vLLM on this GPU",
    "option.rollout.vllm-colocate-sleep": "vLLM on this GPU, asleep while training",
    "option.rollout.vllm-server": "vLLM server on other GPUs",
    "field.vllm_gpu_memory_utilization.label": "vLLM share of the GPU",
    "field.vllm_gpu_memory_utilization.help": "TRL's vllm_gpu_memory_utilization (0.3).",
    "field.text_only.label": "Text only (leave the vision part out)",
    "field.text_only.help": "For a model that sees images: count its language model alone.",
    "field.no_mmproj_offload.label": "Projector in system RAM (--no-mmproj-offload)",
    "field.no_mmproj_offload.help": "llama.cpp keeps the vision projector (mmproj) on the CPU instead of the GPU.",
    "field.fused_ce.label": "Fused cross-entropy (Liger)",
    "field.fused_ce.help": "The logits are computed a chunk of tokens at a time, never for the whole batch.",
    "legend.engine": "Engine",
    "field.runtime.label": "Runs on",
    "field.runtime.help": "The engine decides the memory beyond the weights: its cache layout, buffers and overhead.",
    "option.runtime.transformers": "Hugging Face transformers (generate)",
    "option.runtime.vllm": "vLLM / SGLang (serving)",
    "option.runtime.llamacpp": "llama.cpp / Ollama / LM Studio",
    "field.gpu_memory_utilization.label": "GPU memory utilization",
    "field.gpu_memory_utilization.help": (
        "The share of the card vLLM may use; the KV pool fills what is left. Empty: vLLM 0.34's own, 1.0, the pool "
        "sized after warm-up less a margin (0.92 with the estimate below, as 0.20 to 0.33)."
    ),
    "field.no_extensible_kv_cache.label": "Estimated KV pool (--no-enable-extensible-kv-cache)",
    "field.no_extensible_kv_cache.help": "vLLM 0.34 without its extensible KV cache: the pool from the profiling "
                                         "estimate, as 0.20 to 0.33 sized it.",
    "field.max_num_batched_tokens.label": "Max batched tokens",
    "field.max_num_batched_tokens.help": "vLLM's profiling run; empty: its default for the card (2,048 to 16,384).",
    "field.max_num_seqs.label": "Max sequences",
    "field.max_num_seqs.help": "vLLM's sampler size; empty: its default for the card (256 or 1,024).",
    "field.enforce_eager.label": "Enforce eager (no CUDA graphs)",
    "field.enforce_eager.help": "Saves the CUDA-graph memory at some speed.",
    "field.gpu_layers.label": "GPU layers",
    "field.gpu_layers.help": (
        "--gpu-layers: the output layer first, then the last layers; empty: all. The rest runs from system RAM."
    ),
    "field.parallel.label": "Parallel sequences",
    "field.parallel.help": "--parallel: each sequence has its own context of the sequence length.",
    "field.llamacpp_program.label": "llama.cpp program",
    "field.llamacpp_program.help": (
        "llama-server reserves logits for one row per slot; llama-completion, llama-bench and llama-cpp-python for the "
        "whole micro-batch (a larger compute buffer)."
    ),
    "option.llamacpp_program.llama-server": "llama-server",
    "option.llamacpp_program.llama-completion": "llama-completion, llama-bench, llama-cpp-python",
    "field.ubatch.label": "Micro-batch",
    "field.ubatch.help": "--ubatch-size (512): sets the compute buffer.",
    "field.kv_precision_k.label": "K cache type",
    "field.kv_precision_k.help": "--cache-type-k; a quantised V cache needs flash attention.",
    "field.kv_precision_v.label": "V cache type",
    "field.kv_precision_v.help": "--cache-type-v.",
    "option.kv_precision_kv.same": "same as the KV-cache precision (f16)",
    "answer.max_parallel": "Most parallel sequences",
    "answer.best_format": "Most precise weights that fit",
    "answer.best_kv_format": "Most precise KV cache that fits",
    "answer.format_other_file": "{format} (another file of this model)",
    "answer.format_this_file": "this file's",
    "answer.format_none": "none of this engine's formats",
    "answer.kv_not_applicable": "not applicable: training keeps no KV cache",
    "page.languages": "Language",
    "page.language.en": "English",
    "page.language.pt": "Português",
    "legend.hardware": "Hardware",
    "more.options": "More options",
    "more.set": "{label} · {count} set",
    "field.remember_gpu.label": "Remember my card",
    "field.remember_gpu.help": "Kept in this browser's local storage, only if ticked; untick to forget it.",
    "fit.fits": "fits",
    "fit.tight": "tight",
    "fit.does not fit": "does not fit",
    "fit.cannot_run": "cannot run this format",
    "verdict.one": "one {gpu}",
    "verdict.many": "{count} × {gpu} ({layout})",
    "verdict.fits": "Fits on {where}: {used} of {usable} ({share} used).",
    "verdict.tight": "Fits on {where}, tightly: {used} of {usable} ({share} used); fragmentation may take the rest.",
    "verdict.no": "Does not fit on {where}: {used} needed of {usable} ({share}). The largest part is the {part} "
                  "({part_share} of it).",
    "verdict.pipeline_no": "Does not fit on {where}: {used} needed of {usable} ({share}). Try the placement (CPU "
                           "offload), a smaller precision for the denoiser or the text encoders, or a smaller size.",
    "verdict.at_least": "At least: a stage's working memory is not modelled yet (below).",
    "verdict.no_shared": "Does not fit on {where}: {used} on the GPU and {ram} in system RAM, {total} in all, of "
                         "its {memory} of unified memory ({share}), which the GPU and the CPU share.",
    "verdict.no_carve_out": "Does not fit on {where}: {ram} in system RAM, of the {left} its GPU's {share} carve-out "
                             "leaves of {memory} ({fill}): the carve-out is the GPU's whether used or not.",
    "verdict.no_pool": "Does not fit on {where}: after its weights, activation peak and overhead, vLLM's share of "
                       "the card leaves {pool} of KV cache for the {kv} the sequences need.",
    "verdict.fits.short": "{used} · fits {where} ({share})",
    "verdict.tight.short": "{used} · tight on {where} ({share})",
    "verdict.no.short": "{used} · does not fit {where}",
    "verdict.changes": "Any one of these fits:",
    "export.title": "Export:",
    "export.markdown": "Copy as Markdown",
    "export.csv": "CSV",
    "export.json": "JSON",
    "export.print": "Print or PDF",
    "export.copied": "Copied: paste it into an issue or a chat.",
    "export.downloaded": "Saved {name}.",
    "verdict.none": "No single change in context, batch, format, recipe or GPU count makes it fit: combine them, "
                    "or pick a smaller model.",
    "verdict.change_card": "Change the card",
    "change.attention": "FlashAttention (transformers' SDPA, llama.cpp's -fa) instead of eager",
    "change.kv": "KV cache in {format}",
    "change.seq": "a context of {value:,} tokens",
    "change.batch": "a batch of {value:,}",
    "change.images": "{value:,} {value:image|images} per request",
    "change.image_size": "images of at most {width:,} × {height:,} pixels",
    "change.format": "weights in {format}",
    "change.n_cpu_moe": "the experts of the first {value} {value:layer|layers} in system RAM (--n-cpu-moe {value})",
    "change.gpu_layers": "{value} of {layers} layers on the GPU, the rest in system RAM (-ngl {value}; slower)",
    "change.gpus": "{count:,} × {gpu} ({layout})",
    "change.gpu_memory_utilization": "vLLM's gpu_memory_utilization at {value}",
    "change.gpu_memory_utilization_unset": "vLLM's gpu_memory_utilization left unset (vLLM 0.34's own: 1.0)",
    "change.max_num_seqs": "vLLM's max_num_seqs at {value:,}",
    "change.checkpointing": "per-layer activation checkpointing",
    "change.lora": "LoRA (rank 16) instead of full fine-tuning",
    "change.qlora": "QLoRA: LoRA rank 16 on a 4-bit (nf4) base",
    "change.qlora_checkpointing": "QLoRA (rank 16, nf4) with per-layer activation checkpointing",
    "runtime.vllm": (
        "vLLM on {gpu} at {util:.0%}: it claims {claimed}; after the weights, the activation peak and its overhead the "
        "KV pool is {pool}, {tokens} tokens: {concurrency} {concurrency:sequence|sequences} of {seq} tokens at once."
    ),
    "runtime.vllm_margin": (
        "vLLM 0.34 sizes it after warm-up and CUDA-graph capture, from what is free once its CUDA context has taken "
        "{context}, keeping {margin} free beyond the activation peak (its extensible KV cache: the larger of 1 GiB, "
        "3 GiB on ROCm, and 0.75 × the peak)."
    ),
    "runtime.vllm_margin_no_context": (
        "vLLM 0.34 sizes it after warm-up and CUDA-graph capture, keeping {margin} free beyond the activation peak "
        "(its extensible KV cache: the larger of 1 GiB, 3 GiB on ROCm, and 0.75 × the peak); what its context takes "
        "on this card first is not published, not counted: the pool may be up to about 0.5 GiB smaller."
    ),
    "runtime.vllm_gpus": (
        "vLLM on each of {gpus} × {gpu} ({layout}) at {util:.0%}: it claims {claimed} on each; after that GPU's share "
        "of the weights, the activation peak and its overhead the KV pool on each GPU is {pool}, {tokens} tokens: "
        "{concurrency} {concurrency:sequence|sequences} of {seq} tokens at once."
    ),
    "runtime.llamacpp": (
        "llama.cpp: {gpu_bytes} on the GPU ({layers} of {total} layers and the output), {host_bytes} in system RAM; "
        "context {n_ctx} cells × {n_seq} {n_seq:sequence|sequences}."
    ),
    "field.group_size.label": "Group size",
    "field.group_size.help": "GPTQ and AWQ: weights per fp16 scale (default 128).",
    "field.kv_precision.label": "KV-cache precision",
    "field.kv_precision.help": (
        "Format of the cached keys and values: fp8 (vLLM, SGLang), q8_0/q5_1/q4_0 (llama.cpp, exact block sizes), "
        "int8/int4 (nominal bits)."
    ),
    "field.batch.label": "Batch size",
    "field.batch.help": "Sequences processed together.",
    "field.seq.label": "Sequence length",
    "field.seq.help": "Tokens per sequence (context length).",
    "legend.layout": "Parallel layout",
    "field.tp.label": "Tensor parallel (tp)",
    "field.tp.help": "Splits every matrix across this many GPUs; must divide the attention heads. Empty: inference "
                     "uses tensor parallelism across the GPUs.",
    "field.pp.label": "Pipeline stages (pp)",
    "field.pp.help": "Splits the layers into stages; the first keeps the embedding, the last the head.",
    "field.dp.label": "Data parallel (dp)",
    "field.dp.help": "Replicas, each with its own micro-batch. Empty: the GPUs left over (training: ZeRO-3 over them).",
    "field.ep.label": "Expert parallel (ep)",
    "field.ep.help": "Spreads a mixture of experts' experts over the data-parallel ranks.",
    "field.cp.label": "Context parallel (cp)",
    "field.cp.help": "Splits the sequence across GPUs for long-context training.",
    "field.vpp.label": "Interleaved chunks per stage (vpp)",
    "field.vpp.help": "Megatron's interleaved pipeline: more in flight on the first stage, smaller bubbles.",
    "field.sp.label": "Sequence parallel (with tp)",
    "field.sp.help": "Shards the norms' and dropouts' activations too (Korthikanti et al. 2022).",
    "field.zero.label": "DeepSpeed ZeRO stage",
    "field.zero.help": "1 shards the optimizer state, 2 also the gradients, 3 also the weights, over the data-parallel "
                       "GPUs. Empty: 3 when no layout is set.",
    "field.fsdp.label": "FSDP",
    "field.fsdp.help": "PyTorch FSDP2: full-shard is ZeRO-3, shard-grad-op ZeRO-2, hybrid-shard ZeRO-3 within a node.",
    "option.fsdp.": "off",
    "option.fsdp.full-shard": "full-shard",
    "option.fsdp.shard-grad-op": "shard-grad-op",
    "option.fsdp.hybrid-shard": "hybrid-shard",
    "field.offload.label": "Offload to host memory",
    "field.offload.help": "ZeRO-Offload / FSDP CPU offload: the optimizer state (and gradients), or the weights too.",
    "option.offload.none": "none",
    "option.offload.optimizer": "optimizer state",
    "option.offload.optimizer+params": "optimizer state and weights",
    "field.optimizer_impl.label": "Optimizer implementation",
    "field.optimizer_impl.help": "How the update runs: foreach (PyTorch's default on a GPU) copies the second moment "
                                 "for a moment; fused (the Trainer's default on PyTorch 2.8+) makes no copies.",
    "option.optimizer_impl.": "the optimizer's own",
    "option.optimizer_impl.foreach": "foreach",
    "option.optimizer_impl.fused": "fused",
    "option.optimizer_impl.for-loop": "for-loop",
    "field.optimizer.label": "Optimizer",
    "field.optimizer.help": "Adam(W) keeps 8 bytes per parameter, SGD with momentum 4, SGD none.",
    "field.mixed_precision.label": "Mixed precision",
    "field.mixed_precision.help": "Adds the fp32 master copy of the weights (4 bytes per parameter).",
    "field.checkpointing.label": "Gradient checkpointing",
    "field.checkpointing.help": (
        "Per layer keeps each layer's input and recomputes one layer at a time; sqrt(L) keeps segment inputs."
    ),
    "field.attention.label": "Attention",
    "field.attention.help": ("Eager attention stores the s × s probabilities; FlashAttention (transformers' SDPA, "
                             "llama.cpp's -fa) does not."),
    "field.reserve_gb.label": "Held by other programs (GB)",
    "field.reserve_gb.help": (
        "Memory other programs already hold on each GPU (a desktop keeps 0.5-1.5 GB): added to the "
        "overhead; llama.cpp's own fit sees that much less free; vLLM needs its share free beside it."
    ),
    "field.overhead_gib.label": "Framework overhead (GiB)",
    "field.overhead_gib.help": (
        "CUDA context and workspaces: 0.3–2 GiB measured. Empty: the engine's own (transformers 0.4–1 GiB, vLLM its "
        "non-torch memory and CUDA graphs, llama.cpp 457 MiB, 512 MiB on a Mac)."
    ),
    "field.gpu.label": "GPU",
    "field.cards.label": "More cards in this machine",
    "field.cards.remove": "Remove",
    "field.cards.add": "Add a different card",
    "field.cards.help": "llama.cpp and Ollama split the layers over the cards of one machine by each one's memory; "
                        "the GPU above is CUDA0.",
    "field.draft_model.label": "Draft model (speculative decoding)",
    "field.draft_model.help": "A small model of the same family guesses tokens the model checks: its weights and "
                              "its own cache (vLLM: in the model's pool; transformers: one sequence). A Gemma 4 "
                              "drafter (assistant) reads the model's cache and keeps none.",
    "option.draft_model.none": "None",
    "field.draft_precision.label": "Draft model's GGUF type",
    "field.draft_precision.help": "The draft's file (q8_0 unless chosen).",
    "option.draft_precision.default": "q8_0 (default)",
    "field.draft_kv_precision.label": "Draft's cache type (-ctkd, -ctvd)",
    "field.draft_kv_precision.help": "A draft model's or the MTP layers' cache; llama.cpp's default is f16 "
                                     "whatever -ctk says.",
    "field.draft_gpu_layers.label": "Draft's layers on the GPU (-ngld)",
    "field.draft_gpu_layers.help": "Empty: all.",
    "field.mtp.label": "MTP tokens (speculative decoding)",
    "field.mtp.help": "Tokens the model's own multi-token-prediction layers draft per step (vLLM method mtp; "
                      "llama-server --spec-type draft-mtp). Their weights, their cache and the extra logits rows are "
                      "counted. 0: off.",
    "field.spec_acceptance.label": "Acceptance rate (speculative decoding)",
    "field.spec_acceptance.help": "The chance that the model accepts a drafted token, 0 to 1: the decode speed follows "
                                  "from it. Empty: 0.85 for MTP layers, 0.7 for a draft model.",
    "field.gpu.help": (
        "Usable memory as PyTorch reports it where known; for a Mac, the share its GPU may use. Any other card: "
        "gpu=24gb in the link (or --gpu 24gb). Different cards in one machine (llama.cpp and Ollama): add them "
        "below (in a link, gpu=rtx-3090,rtx-4060-ti-16gb)."
    ),
    "field.gpus.label": "Number of GPUs",
    "field.gpus.help": "How many of them. With more than one, set the layout below or keep the default: tensor "
                       "parallel for inference, data parallel with ZeRO-3 for training.",
    "field.headroom.label": "Headroom (%)",
    "field.headroom.help": (
        "20 % by default: 1 GiB of overhead plus an 8k-token KV cache is 11–25 % of a 16–80 GB card."
    ),
    "field.vram.label": "Add a size (GB)",
    "field.vram.help": "Any memory size, e.g. 40; its row lists every example that fits.",
    "option.model.custom": "Custom numbers",
    "option.model.config": "Imported config.json",
    "option.model.weights": "From a weight file",
    "option.kv_precision.same": "same as weights (16-bit if quantised)",
    "option.mode.inference": "Inference",
    "option.mode.training": "Training",
    "option.mode.embedding": "Embedding",
    "option.optimizer.adamw": "AdamW",
    "option.optimizer.adam": "Adam",
    "option.optimizer.sgd-momentum": "SGD with momentum",
    "option.optimizer.sgd": "SGD",
    "option.checkpointing.none": "None",
    "option.checkpointing.layer": "Per layer",
    "option.checkpointing.sqrt": "sqrt(L) segments",
    "option.attention.flash": "Flash / SDPA",
    "option.attention.eager": "Eager",
    "results.command": "The command to run it",
    "results.expected_log": "vLLM should then log about these lines:",
    "results.copy_command": "Copy the command",
    "import.summary": "Import a config.json or weight files",
    "import.file": "config.json file",
    "import.paste": "or paste it",
    "import.apply": "Use this config",
    "import.private": "Read in your browser only; never uploaded.",
    "import.pipeline.summary": "Import a diffusers pipeline folder",
    "import.pipeline.folder": "The folder with model_index.json",
    "import.pipeline.help": (
        "Only model_index.json and each part's config.json are read, in your browser; never uploaded (the browser may "
        "still ask whether to \"upload\" the folder: nothing leaves this page)."
    ),
    "import.pipeline.status": "{name}: {parts}; defaults of {defaults}; not counted: {ignored}",
    "import.weights": "or weight files (.gguf, .safetensors shards): their headers only, for exact weights",
    "import.weights_clear": "Forget the weight file",
    "import.hf": "or a Hugging Face id (ORG/NAME or ORG/NAME@revision), read on request",
    "import.hf_button": "Read its config.json from huggingface.co",
    "import.hf_sends_none": (
        "Nothing is sent until you click. The click asks huggingface.co for the model's file list and its "
        "config.json, which tells it the id and nothing else."
    ),
    "import.hf_sends": "The click sends two requests to huggingface.co, and nothing else: GET {info} and GET {config}",
    "page.hf.reading": "Reading {repo} from huggingface.co…",
    "page.hf.read": "Read from huggingface.co: {repo} ({revision}); kept in this browser for offline use.",
    "page.hf.read_unsaved": "Read from huggingface.co: {repo} ({revision}); this browser's storage did not keep it.",
    "page.hf.saved": "huggingface.co could not be reached ({why}): used this browser's copy of {repo}.",
    "page.hf.gated": (
        "hf: {repo} is gated or private (huggingface.co answered {status}): accept its terms there, download its "
        "config.json and paste it above."
    ),
    "page.hf.missing": "hf: huggingface.co has no repository {repo} at revision {revision} (404).",
    "page.hf.status": "hf: huggingface.co answered {status} for {url}.",
    "page.hf.unreachable": (
        "hf: could not reach huggingface.co ({why}); download config.json and paste it above, which works offline."
    ),
    "page.hf.gguf": (
        "hf: {repo} holds GGUF files and no config.json: download one and open it above as a weight file. "
        "Its models: {files}"
    ),
    "page.hf.pipeline": (
        "hf: {repo} is a diffusers pipeline (model_index.json), not a language model: choose “Image or video” and "
        "import its downloaded folder there, or run vramcalc diffusion --hf {repo}."
    ),
    "page.hf.no_model": "hf: {repo} holds no config.json and no GGUF file: not a language model this page reads.",
    "page.hf.not_json": "hf: what huggingface.co sent for {url} is not JSON.",
    "link.hf": "This link names the Hugging Face model {repo}: click “{button}” under “{where}” to read it. "
               "Nothing was requested.",
    "page.weights": "Weights: {name}",
    "results.total": "Total",
    "results.bar_title": "Memory breakdown",
    "results.breakdown_caption": "Breakdown (GiB = 2³⁰ bytes)",
    "results.col.component": "Component",
    "results.col.size": "Size",
    "results.col.share": "Share",
    "results.col.how": "How it is computed",
    "results.summary_speech": (
        "{model}, {mode}, {precision}, {beams} beams, {seconds:,} s of audio ({windows} × 30 s, {batch} "
        "at once)"
    ),
    "results.header_speech": (
        "{mode}, {precision}, {beams} beams, {seconds:,} s of audio ({windows} × 30 s, {batch} at once)"
    ),
    "results.summary": "{model}, {mode}, {precision}, batch {batch}, {seq:,} tokens",
    "results.params": "{count} parameters",
    "results.active": " ({count} active per token)",
    "gpus.title": "Which GPUs fit",
    "gpus.caption": (
        "One GPU's usable memory (what PyTorch sees where known), its use, and how many GPUs the default layout needs "
        "(tensor parallel for inference, ZeRO-3 for training)"
    ),
    "gpus.col.gpu": "GPU",
    "gpus.col.memory": "Memory",
    "gpus.col.use": "Use of one GPU",
    "gpus.col.needed": "GPUs needed",
    "gpus.col.verdict": "Verdict",
    "gpus.marketed": "({marketed} GB marketed)",
    "reverse.title": "What fits on one card, or on several",
    "reverse.heading": "On {target} ({memory} each)",
    "reverse.heading_split": "On {target} ({memory} each), laid out as {layout}",
    "layout.assumed": "{layout}, assumed ({why}): set the layout to change it",
    "layout.default_inference": "tensor parallel over the largest degree that divides the heads, pipeline stages for "
                                "the rest",
    "layout.default_inference_replicas": (
        "tensor parallel over the largest degree that divides the heads, pipeline stages for the rest up to one per "
        "layer, and copies of the model on the GPUs beyond"
    ),
    "layout.default_llamacpp": "llama.cpp splits the layers across the GPUs",
    "layout.zero_one_gpu": ". ZeRO and FSDP shard over data-parallel GPUs: on one GPU they save nothing unless "
                           "they offload",
    "layout.default_training": "data parallel with ZeRO-3, the equivalent of FSDP's full shard",
    "rank.title": "The most loaded GPU ({rank}): {total} at its peak ({phase}), {share} of its {memory}",
    "rank.title_device": "The fullest GPU, {device} {gpu}: {total} at its peak ({phase}), {share} of its {memory}",
    "field.devices.caption": "Each GPU of llama.cpp's split, in GiB, in the parts llama_memory_breakdown_print logs",
    "field.devices.device": "GPU",
    "field.devices.layers": "Layers",
    "field.devices.model": "Model",
    "field.devices.context": "Context",
    "field.devices.compute": "Compute",
    "field.devices.overhead": "Overhead",
    "field.devices.total": "Total",
    "field.devices.share": "Used",
    "field.devices.memory": "Card",
    "rank.title_same": "Each GPU holds {total} at its peak ({phase}), {share} of its {memory}",
    "rank.inference": "inference",
    "rank.caption": "What the most loaded GPU holds, and how the layout split each part onto it",
    "rank.col.component": "Component",
    "rank.col.size": "On this GPU",
    "rank.col.split": "How it was split",
    "rank.stage": "stage {stage} of {stages}",
    "rank.stages": "Pipeline stages: {stages}",
    "rank.host": "Host memory per node for the offloaded states: {bytes}",
    "rank.vllm_pool": "vLLM's KV pool on this GPU: {pool}, {tokens} tokens, {concurrency} "
                      "{concurrency:sequence|sequences} of {seq} tokens at once",
    "split.layers": "{count} of {layers} layers",
    "split.embedding": " and the embedding",
    "split.head": " and the head",
    "split.last_stage": "on the last stage only",
    "split.tp": "TP {tp}: 1/{tp} of each matrix, norms replicated",
    "split.kv_heads": "{per} of {heads} KV heads per GPU",
    "split.kv_replicated": "{per} KV head per GPU: {heads} heads over TP {tp}, so heads are replicated",
    "split.kv_latent": "MLA's latent is replicated on every TP rank",
    "split.vocab": "1/{tp} of the vocabulary",
    "split.ep": "experts over EP {ep}",
    "split.tp_activations": "TP {tp}: the split parts of each layer's activations, the rest replicated",
    "split.sp": "TP {tp} with sequence parallel: 1/{tp} of every activation",
    "split.cp": "1/{cp} of the sequence (context parallel)",
    "split.in_flight": "micro-batches in flight (1F1B): {count}",
    "split.own_batch": "its own micro-batch of {batch} (data parallel)",
    "split.offloaded": "offloaded to host memory",
    "split.sharded": "sharded over {n} data-parallel ranks (ZeRO-{zero})",
    "split.replicated": "a full copy on each of {dp} data-parallel ranks",
    "split.zero3": "1/{n} of each (ZeRO-3), plus the gathered layer ({gather})",
    "split.vllm_peak": "the profiling run's peak, whole on every GPU",
    "split.vllm_nccl": "NCCL and all-reduce buffers (0.42 GiB more per GPU at TP 2 in vLLM's logs)",
    "split.every_gpu": "on every GPU",
    "reverse.hint": (
        "Exact: the answer fits and one more token, sample or layer does not. “Fits” means at most 100 % of each "
        "GPU's memory; keep some margin for fragmentation."
    ),
    "answer.max_num_ctx": "Largest context (num_ctx)",
    "answer.max_seq": "Longest sequence",
    "answer.max_batch": "Largest batch",
    "answer.min_gpus": "Fewest GPUs",
    "answer.max_params": "Largest model, same family",
    "answer.seq_none": "none: even 1 token does not fit",
    "answer.seq_capped": "at least {value:,} tokens (the input limit)",
    "answer.seq": "{value:,} tokens",
    "answer.seq_beyond_context": " (beyond the model's {context:,}-token context)",
    "answer.batch_none": "none: even {smallest} does not fit",
    "answer.batch_capped": "at least {value:,} (the input limit)",
    "answer.gpus_none": "none: the overhead alone fills one GPU",
    "answer.gpus_one_only": ("none: with a draft model or MTP layers llama.cpp is modelled on one GPU, "
                            "which does not hold it"),
    "answer.gpus_none_rank": "none up to 1,024: what every GPU keeps whatever the count (its own micro-batch, the "
                             "parts this layout replicates) is more than one card",
    "answer.gpus": "{value:,} × {gpu}",
    "answer.params_none": "none: even 1 layer does not fit",
    "answer.params": "{at_least}{count} parameters ({layers:,} layers of this width; now {now:,})",
    "answer.at_least": "at least ",
    "target.one": "{gpu}",
    "target.many": "{count} × {gpu}",
    "chart.title": "Memory per GPU against {axis}",
    "chart.axis.seq": "sequence length (tokens)",
    "chart.axis.num_ctx": "context Ollama allocates, num_ctx (tokens)",
    "chart.axis.parallel": "parallel sequences (--parallel)",
    "chart.axis.batch": "batch size",
    "chart.limit": "{target}: {memory} each",
    "chart.now": "now {value:,}",
    "chart.desc": "Memory per GPU against {axis}, from {first} at 1 to {last} at {end}; {ending}.",
    "chart.ending.none": "even {name} 1 does not fit on {target}",
    "chart.ending.all": "it fits on {target} across the whole range",
    "chart.ending.stop": "it stops fitting on {target} ({memory} each) after {answer:,}",
    "capacity.several_gpus": "several GPUs",
    "link.too_long": "The link was longer than {limit:,} characters; the rest was ignored.",
    "link.too_many": "The link had more than {limit} parts; the rest were ignored.",
    "link.value_too_long": "Ignored from the link: {field}: longer than {limit} characters.",
    "link.config": "Ignored from the link: model 'config' (an imported config.json never leaves its machine).",
    "link.pipeline_config": "Ignored from the link: pipeline 'config' (an imported diffusers folder never leaves its "
                            "machine).",
    "link.hidden": "Ignored from the link: {keys}, a layout of several GPUs, with one GPU.",
    "problem": "{field}: got {value}; {reason}",
    "problem.whole_number": "expected a whole number from {g0} to {g1}",
    "problem.number": "expected a number from {g0} to {g1}",
    "problem.number_above": "expected a number above {g0} up to {g1}",
    "problem.one_of": "expected one of: {g0}",
    "problem.one_of_or_empty": "expected one of: {g0} or nothing (the default)",
    "problem.flag": "expected 1 or 0",
    "problem.version_printed": "a version such as {g0}, as `{g1}` prints it",
    "problem.version": "a version such as {g0}",
    "problem.lora_targets": "expected all-linear, all-linear,head or a comma-separated subset of {g0}",
    "problem.override_tensor": "expected PATTERN=DEVICE, e.g. {g0}",
    "problem.tensor_split_zero": "at least one proportion above 0 (all zero: leave it empty)",
    "problem.at_most_patterns": "at most {g0} patterns",
    "problem.at_most_proportions": "at most {g0} proportions, one per GPU",
    "problem.gpu": "a listed GPU or Mac (e.g. {g0}), or a card's memory such as {g1} ({g2} to {g3} GB)",
    "problem.draft_model": "a preset's name (a small model of the same family), or empty",
    "problem.gguf_type": "a GGUF type ({g0})",
    "link.ignored": "Ignored from the link: {problem}",
    "link.unknown": "Ignored unknown link keys: {keys}",
    "link.repeated": "Used the first of repeated link keys: {keys}",
    "chart.caption": (
        "Solid line: memory per GPU. Dashed line: the GPU's memory. Hatched: does not fit. Vertical line: your "
        "current value."
    ),
    "capacity.title": "What fits in how much memory",
    "capacity.intro": (
        "Model sizes, in billions of parameters, whose weights fit in each amount of VRAM. The upper bound is the "
        "weights alone filling the memory; the lower bound keeps the headroom below free for the framework, the KV "
        "cache and activations."
    ),
    "capacity.caption": (
        "GB = 10⁹ bytes. Examples: models that first fit in that row, or fit at a more precise format than in the "
        "row above, each at the most precise format that fits."
    ),
    "capacity.col.vram": "VRAM",
    "capacity.col.examples": "Examples",
    "capacity.note.1": (
        "Rarely is all VRAM available: the framework, the operating system's display and other processes take some."
    ),
    "capacity.note.2": (
        "Inference needs less than training: training also keeps gradients, optimizer state and stored activations "
        "(16 bytes per parameter or more with Adam)."
    ),
    "capacity.note.3": (
        "“Several GPUs”: more than the largest single GPU in our list holds; model parallelism splits a model over "
        "several cards."
    ),
    "capacity.note.4": (
        "INT8 and below need quantisation; exact sizes depend on the architecture, the implementation and the "
        "format's scales. Counts marked in the data as published rather than exact are the papers' rounded figures."
    ),
    "capacity.note.5": (
        "Compared with the original table: it kept 4 GB free up to 24 GB (25 % and 17 %) and 8 GB above (10 % at "
        "80 GB, down to 1.6 % at 512 GB), too little for the KV cache and activations of the large models those "
        "rows are for. Here the headroom is a share of the memory: 20 % unless you change it."
    ),
    "guide.title": "Guide",
    "guide.1.q": "What is VRAM, and why does it matter?",
    "guide.1.a": (
        "VRAM is the GPU's own memory. To run a model the GPU must hold its weights, the cached keys and values of "
        "the text so far (the KV cache) and the intermediate results of the layer it is computing. If the sum is "
        "larger than the card, the program stops with an out-of-memory error, or spills to much slower memory."
    ),
    "guide.2.q": "Why does training need so much more?",
    "guide.2.a": (
        "Training keeps a gradient for every weight, the optimizer's state (Adam keeps two fp32 numbers per weight: "
        "8 bytes), with mixed precision an fp32 copy of the weights (4 bytes), and the activations of every layer "
        "for the backward pass. With Adam and mixed precision that is 16 bytes per parameter before any activation."
    ),
    "guide.3.q": "How does precision change memory?",
    "guide.3.a": (
        "A weight takes 4 bytes in fp32, 2 in fp16 or bf16, 1 in int8 and half a byte in int4. Going from fp16 to "
        "int4 divides the weights by four, which is how a 70B model fits on one or two cards. Quantised formats also "
        "store scales (about 0.1–0.5 bit per weight more), which this page leaves out and says so."
    ),
    "guide.4.q": "What is the KV cache?",
    "guide.4.a": (
        "While generating, the model keeps each layer's keys and values for every token so far: 2 × layers × KV "
        "heads × head size × tokens × batch values. Models with grouped-query attention (Llama 3, Mistral, "
        "Qwen2.5) share keys and values between heads, so their cache is 4–8 times smaller than the hidden size "
        "suggests. Long contexts can make the cache larger than the weights."
    ),
    "guide.5.q": "What does gradient checkpointing trade?",
    "guide.5.a": (
        "Instead of keeping every layer's activations, per-layer checkpointing keeps only each layer's input and "
        "recomputes one layer at a time during the backward pass, about a third more compute for a large cut in "
        "memory. The sqrt(L) scheme keeps fewer inputs and recomputes larger segments."
    ),
    "guide.6.q": "How accurate is it?",
    "guide.6.a": (
        "Parameter counts are exact; the KV cache and model states follow their definitions byte for byte; training "
        "activations follow what Hugging Face transformers saves, checked against measurements on real "
        "implementations. The framework overhead varies with driver and libraries: set it to what you see."
    ),
    "guide.7.q": "What can I ask the other way round?",
    "guide.7.a": (
        "Pick a GPU and how many of them: the page gives the longest context and the largest batch that fit, the "
        "fewest cards needed, and the largest model of the same width. The table below it answers “what fits in N "
        "GB?” at every precision."
    ),
    # moved out of the engine (formulas, model notes and assumptions, the model line)
    "weights.share": "{what}: {params} at {bits} bpw",
    "weights.part.linear": "linear layers",
    "weights.part.rest": "embeddings, head, norms, routers and biases in bf16",
    "weights.part.mlp": "MLP and expert layers",
    "weights.part.rest_attention": "attention, embeddings, head, norms, routers and biases in bf16",
    "weights.part.rest_experts": "routed experts, {rest}",
    "weights.part.rest_mxfp4": "attention, router, embeddings, head, norms and biases in bf16",
    "weights.part.rest_int4": "attention, dense and shared MLPs, router, embeddings, head and norms in bf16",
    "weights.part.fp4_experts": "routed experts in FP4 with a ue8m0 scale per 32 weights (4.25 bits)",
    "weights.part.fp8_ue8m0": "other linear layers in FP8 with a ue8m0 scale per 128 × 128 block",
    "weights.part.fp32_v4": "hyper-connections, attention sinks and compressor position biases in fp32",
    "weights.part.rest_v4": "compressors, indexer weights, router, embeddings, head and norms in bf16",
    "activations.masks": (
        "{layers_bytes}, plus {masks_bytes} of s × s attention masks built once for the forward: {bytes}"
    ),
    "activations.cross_images": (
        "; of it {bytes} for {images} {images:image|images}: {tower}, and the {cross} cross-attention layers keep "
        "the {tokens} vision tokens of each sequence (their K and V, repeated to every head, and the masks)"
    ),
    "activations.tower.trained": "the vision tower, trained, saves its layers' tensors over every tile",
    "activations.tower.lora": ("the frozen vision tower saves, over every tile, what its LoRA adapters need from the "
                               "first one on"),
    "activations.tower.frozen": "the vision tower, frozen and without adapters, saves nothing",
    "activations.tower.inputs": ("the frozen vision tower saves its layers' tensors over every tile, as checkpointing "
                                 "makes its patch embeddings ask for a gradient (transformers' "
                                 "enable_input_require_grads)"),
    "activations.vision": (
        "; before it the vision tower encodes {encodes}: {bytes} with the prompt's embeddings{estimated}, {extra} "
        "above the prefill's own peak"
    ),
    "activations.images": "{images} {images:image|images} of {patches} patches",
    "activations.video": "{videos} {videos:video|videos}, {pairs} frame pairs of {patches} patches",
    "activations.vision.kin": " (estimated like a measured family)",
    "activations.kept": "{inputs} inputs × {input_bytes} B + {layers}",
    "model.note.multimodal": (
        "{model_type} is multimodal: the language model is counted; its vision tower and projector are not, as "
        "this type's are not read (engines load them unless told to skip images)"
    ),
    "model.note.vq_vae": (
        "Emu3 is multimodal: the language model is counted; its VQ-VAE image tokenizer (vq_config) is not "
        "(270,740,287 parameters with Emu3VQVAEConfig's defaults, transformers 5.23)"
    ),
    "model.note.default_value": "{key} {value}",
    "model.note.defaults": "Not in the config, taken from transformers' defaults for {model_type}: {keys}",
    "model.note.fp8_variant": "the publisher also ships {hf_id}, whose FFN weights are FP8 and the rest bf16: "
                              "precision fp8 with quantise mlp (its row-wise scales counted as one per tensor)",
    "model.note.mtp_undescribed": (
        "the checkpoint also carries one multi-token-prediction (MTP) layer (about {params} parameters) that the "
        "config does not describe; engines load it only for speculative decoding, and it is not counted"
    ),
    "model.note.zero_experts": (
        "transformers 5.23 gives the {count} zero-computation experts gate and up slots too: {params} parameters "
        "the checkpoint does not have, held by transformers only: the other engines' answers leave them out"
    ),
    "model.note.mtp": (
        "the multi-token-prediction (MTP) layer in the checkpoint is not counted: engines load it only for speculative "
        "decoding, which the MTP tokens setting (mtp) counts on vLLM and llama.cpp (llama.cpp's GGUF files may keep "
        "it, so a file can be larger than what is loaded)"
    ),
    "model.note.mtp_on": (
        "speculative decoding with the multi-token-prediction (MTP) layers, {tokens} {tokens:token|tokens} drafted "
        "per step on "
        "{engine}: its {layers} MTP {layers:layer is|layers are} counted, {params} parameters in the total{copies}; "
        "{rest}"
    ),
    "model.note.mtp_on.shared_vllm": ", sharing the model's embedding and head (vLLM shares them even where the "
                                     "checkpoint has copies)",
    "model.note.mtp_on.shared_llamacpp": (
        ", sharing the model's embedding and head (a GGUF whose MTP layer keeps its own copies, as GLM-4.5's "
        "checkpoint has them, loads 2 × vocabulary × hidden more)"
    ),
    "model.note.mtp_on.embed_head": (
        ", each with its own copies of the embedding and head (embed_tokens, shared_head.head), as the checkpoint "
        "has them"
    ),
    "model.note.mtp_on.vllm": (
        "their KV cache shares vLLM's pool, and the proposer's buffers are in the activations row; the drafting and "
        "rejection sampling's own peak is not modelled"
    ),
    "model.note.mtp_on.llamacpp": (
        "the MTP context's cache and compute buffer, and the model's logits rows for the drafted tokens, are in the "
        "rows above"
    ),
    "assumption.unknown_type": (
        "model_type {model_type} is not one of the {count} types the calculator reads exactly: it was read as a "
        "Llama-style decoder (RMSNorm, rotary attention, gated MLP)"
    ),
    "assumption.legacy.xlstm": (
        "xLSTM's mLSTM layers were read as attention (q, k, v and the output gate together are as wide as four "
        "hidden_size² projections) over a window of one token: the input and forget gates, the multi-head norm "
        "and the per-head memory state (head_dim² per head) are not counted"
    ),
    "assumption.legacy.cpmant": (
        "CPM-Ant's prompt rows of the embedding, its segment embedding and its relative position bias are not "
        "counted"
    ),
    "assumption.legacy.gpt_neox_japanese": (
        "the last layer's attention-output bias (hidden_size values) is not counted"
    ),
    "assumption.layer_kind": (
        "{count} layers of kind {kind} are not a kind the calculator reads for model_type {model_type}: they "
        "were counted as full-attention layers"
    ),
    "assumption.weights_file": "the weight file does not match the architecture: {what}",
    "assumption.weights_file.experts": "layer {layer} has expert tensors ({bytes}) the config does not predict",
    "assumption.weights_file.no_layer": "layer {layer} has no tensors in the file",
    "assumption.weights_file.no_embedding": "there is no token embedding table in the file",
    "assumption.weights_file.more": "and {count} more",
    "model.note.same_shapes": "the same shapes as {model}: only its context ({context} tokens) and RoPE base differ",
    "assumption.drafter_alone": (
        "a drafter runs only beside its target model, whose memory is not in this answer, and transformers 5.23 "
        "cannot build one (its kv_sharing_modes refuses a model whose every layer reuses K/V): the weights are "
        "exact, the total and speed are the drafter's share alone; to count both, choose its Gemma 4 target as the "
        "model and this drafter as the draft model (runtime llamacpp)"
    ),
    "model.note.drafter": (
        "a drafter for speculative decoding: every one of its {count} layers attends to its target's keys and values "
        "(a Gemma 4 model {backbone} wide), so it keeps no cache of its own; counted here alone, without the target"
    ),
    "model.note.kv_shared": (
        "the last {count} layers reuse an earlier layer's keys and values: they keep no cache, and transformers "
        "builds no K/V projections for them; the checkpoint still carries those {params} parameters, which vLLM and "
        "llama.cpp load (not counted here)"
    ),
    "assumption.guessed_mla": "its attention was read as DeepSeek's latent attention (MLA), by its kv_lora_rank",
    "assumption.guessed_experts": (
        "its experts were read by {key} and the rules of the family that uses that key (which layers have them, "
        "their width, shared experts)"
    ),
    "assumption.no_type": (
        "the config has no model_type: it was read as a Llama-style decoder (RMSNorm, rotary attention, gated MLP)"
    ),
    "assumption.quantised": ("config.json's quantization_config ({method}) is not read: the weights are counted in "
                             "the precision shown, not the checkpoint's format (choose it: fp8, gptq-int4, ...)"),
    "assumption.ignored_key": "{key} = {value} is not understood for model_type {model_type} and was ignored",
    "assumption.custom.heads": "heads not given: assumed {heads} (head_dim {head_dim})",
    "assumption.custom.kv_heads": "KV heads not given: assumed multi-head attention (KV heads = heads)",
    "assumption.custom.vocab": "vocabulary not given: assumed {vocab} tokens",
    "assumption.custom.ffn": "FFN size not given: assumed {ffn} (gated MLP, about 8h/3)",
    "assumption.custom.block": "Llama-style block (RMSNorm, rotary, gated MLP) for activations",
    "model.arch.mla": "MLA (latent {width})",
    "model.arch.mqa": "MQA, head_dim {head_dim}",
    "model.arch.gqa": "GQA {heads}/{kv_heads} heads, head_dim {head_dim}",
    "model.arch.mha": "MHA {heads} heads, head_dim {head_dim}",
    "model.arch.kinds": "{kinds}",
    "model.arch.kind.full": "{count} full{window}",
    "model.arch.kind.sliding": "{count} sliding{window}",
    "model.arch.kind.chunked": "{count} chunked{window}",
    "model.arch.kind.linear": "{count} linear{window}",
    "model.arch.parallel_mamba": "a Mamba mixer beside every attention",
    "model.arch.kind.mamba": "{count} Mamba{window}",
    "model.arch.kind.none": "{count} MLP-only{window}",
    "model.arch.kind.conv": "{count} short-convolution{window}",
    "model.arch.kind.cross": "{count} cross-attention (to the image){window}",
    "model.arch.window": " ({window})",
    "model.arch.moe": "MoE {experts} experts, {per_token} per token{shared}{partial}",
    "model.arch.moe.shared": " + shared",
    "model.arch.moe.partial": ", on {moe_layers} of {layers} layers",
    "model.arch.tied": "tied embeddings",
    "gradients.adapters": "{dtype} adapters",
    # weight formats (formats/weights.py)
    "format.gptq-int4": "GPTQ 4-bit (int32-packed weights, fp16 scales, packed zeros and g_idx per group)",
    "format.gptq-int8": "GPTQ 8-bit (int32-packed weights, fp16 scales, packed zeros and g_idx per group)",
    "format.awq-int4": "AWQ 4-bit (int32-packed weights, fp16 scales and packed zeros per group)",
    "format.nf4": "bitsandbytes NF4 (4-bit, one fp32 absmax per 64 weights)",
    "format.nf4-dq": "bitsandbytes NF4 with double quantisation (8-bit absmax per 64, fp32 per 256 of those)",
    "format.bnb-int8": "bitsandbytes LLM.int8() (int8 weights, one fp32 scale per output row)",
    "format.fp8": "FP8 e4m3 (one fp32 scale per tensor)",
    "format.fp8-block": "FP8 e4m3 (one fp32 scale per 128 × 128 block)",
    "format.mxfp4": "MXFP4 (4-bit values, one 8-bit scale per 32: 4.25 bits)",
    "format.nvfp4": "NVFP4 (4-bit values, one FP8 scale per 16 and one fp32 per tensor: 4.5 bits)",
    "format.gguf": "GGUF {name} (llama.cpp)",
    "format.gguf_as": "GGUF {name} (llama.cpp), sized as {planned}: its per-tensor types are not published",
    "format.file": "the weights of {name}",
    "format.native": "the checkpoint's native format",
    "format.auto": "the checkpoint as published",
    "format.bpw": "EXL2/EXL3 at {bpw} bits per weight",
    "format.native_mxfp4": "expert FFNs in MXFP4 (4.25 bits)",
    "format.native_int4_experts": "routed experts in int4 with a bf16 scale per 32 weights (4.5 bits)",
    "format.native_fp8_tensor": "linear layers in FP8 with one scale per matrix",
    "format.native_fp8_block": "linear layers in FP8 with 128 × 128 block scales",
    # how presets' checkpoints store their weights (data/models/*.json native_format)
    "native.int4_experts": (
        "int4 routed experts (compressed-tensors W4A16: a bf16 scale per 32 weights, 4.5 bits); attention, dense "
        "and shared MLPs, embeddings and head in bf16"
    ),
    "native.mxfp4": (
        "MXFP4 experts (4.25 bits per weight: 4-bit values and one 8-bit scale per 32); attention, router, embeddings "
        "and head in bf16"
    ),
    "native.fp8_tensor": (
        "FP8 (e4m3) with one scale per weight matrix and static activation scales; embeddings, head, norms "
        "and any vision tower in bf16"
    ),
    "native.fp8_block": "FP8 (e4m3) with one fp32 scale per 128 × 128 block; head, norms and routers in bf16",
    "native.fp4_fp8": (
        "FP4 routed experts (a ue8m0 scale per 32 weights, 4.25 bits), the other linear layers FP8 (e4m3) with a "
        "ue8m0 scale per 128 × 128 block; compressors, indexer weights, router, embeddings, head and norms in bf16; "
        "hyper-connections, attention sinks and compressor position biases in fp32"
    ),
    "native.fp8_block_embeddings": (
        "FP8 (e4m3) with one fp32 scale per 128 × 128 block; embeddings, head, norms and router in bf16"
    ),

    # speed and cost (speed/, render/speed.py)
    "speed.title": "Speed",
    "speed.intro": (
        "Estimated from the bytes each token reads and the FLOPs it costs, at what this engine achieves on this card "
        "in published runs; typical error below."
    ),
    "speed.line": "About {decode} tokens/s per sequence, first token in {ttft}.",
    "speed.line.not_fit": "{line}, if it fit.",
    "speed.line.no_ttft": "About {decode} tokens/s per sequence.",
    "speed.line.training": "About {tokens} training tokens/s, {step} per step.",
    "speed.figure.ttft": "Time to first token",
    "speed.figure.decode": "Generation, per sequence",
    "speed.figure.output": "Generation, all sequences",
    "speed.figure.prefill": "Prompt processing",
    "speed.figure.tpot": "Time per output token",
    "speed.figure.step": "Training step",
    "speed.figure.train": "Training throughput",
    "speed.figure.mfu": "Model FLOPs utilisation",
    "speed.figure.run": "Training run",
    "speed.figure.cost_hour": "Price",
    "speed.figure.cost_tokens": "Cost of output",
    "speed.figure.cost_embed": "Cost of embedding",
    "speed.figure.cost_audio": "Cost of transcription",
    "speed.value.usd_million_input": "US${value} per million tokens embedded",
    "speed.value.usd_audio_hour": "US${value} per hour of audio",
    "speed.figure.cost_run": "Cost of the run",
    "speed.value.tokens_s": "{value} tokens/s",
    "speed.value.seconds": "{value} s",
    "speed.value.ms": "{value} ms",
    "speed.value.hours": "{value} h",
    "speed.value.usd_hour": "US${value} per hour",
    "speed.value.usd_million": "US${value} per million output tokens",
    "speed.value.usd": "US${value}",
    "speed.basis.memory": (
        "Memory-bound: {bytes} read per step{each} at {share} of {bandwidth} GB/s{cache}: {read} ms{host_part}, plus "
        "{fixed} ms of fixed cost per step ({step} ms per token on average, {sequences} "
        "{sequences:sequence|sequences} at about {depth} tokens of context)."
    ),
    "speed.basis.each_gpu": " by each of its {gpus} GPUs",
    "speed.basis.cache_share": " ({cache} of it the KV cache, read at {share})",
    "speed.basis.host_part": ", and {host} from system RAM at {share} of {ram} GB/s: {ms} ms",
    "speed.basis.host_memory": (
        "Bound by system RAM: {host} read per step from RAM at {ram_share} of {ram} GB/s, and {bytes}{each} from the "
        "GPU at {share} of {bandwidth} GB/s{cache}, plus {fixed} ms of fixed cost ({step} ms per token on average)."
    ),
    "speed.ram.yours": "System RAM read at {ram} GB/s: the figure you gave.",
    "speed.ram.desktop": (
        "System RAM read at {ram} GB/s: the default, a dual-channel DDR5 desktop's (a card of its own in a PC; give "
        "your RAM's bandwidth if it differs)."
    ),
    "speed.ram.unified": (
        "System RAM read at {ram} GB/s: the default on unified memory, where the CPU cores read the layers kept in RAM "
        "out of the one memory at about half its bandwidth (AnandTech measured about 200 of an M1 Max's 400 GB/s), "
        "never below a desktop's {desktop} GB/s nor above the memory's own."
    ),
    "speed.basis.compute": (
        "Compute-bound: {sequences} {sequences:sequence|sequences} per step; the {bytes}{each} read at {share} of "
        "{bandwidth} GB/s take "
        "less time than the matmuls ({step} ms per step)."
    ),
    "speed.basis.rdna_mxfp4": (
        "Of the GPU's time per step, {seconds} ms are gpt-oss's MXFP4 experts on an RDNA card beyond their read: "
        "transformers runs them through triton_kernels' matmul_ogs, whose AMD launch setting at {rows} routed rows or "
        "fewer (2 warps) took {slowdown} times its tuned time in triton-lang/triton PR #10810 (gfx1201); neither of "
        "the Hub's copies that transformers loads has that PR's RDNA configs."
    ),
    "speed.basis.overhead": (
        "Bound by fixed costs: {launch} ms per step of kernel launches and synchronisation, more than reading {bytes}"
        "{each} at {share} of {bandwidth} GB/s{cache} ({step} ms per token)."
    ),
    "speed.basis.prefill_acc16": (
        "Prompt: {flops} TFLOP for {tokens} tokens at {share} of {tflops} TFLOPS{each}, the card's rate with FP16 "
        "accumulation that llama.cpp's kernels use, twice the 16-bit rate listed for GeForce cards ({kernel} matmuls)."
    ),
    "speed.basis.prefill_rest": (
        "The matmuls take {compute} s of it; reading the weights, the activations between them and the attention "
        "scores, and the fixed cost of each of its {chunks} {chunks:micro-batch|micro-batches} bring the first token "
        "to {total} s."
    ),
    "speed.basis.on_each_gpu": " on each of its {gpus} GPUs",
    "speed.basis.embed_rest": (
        "The matmuls take {compute} s of it; reading the weights and the activations between them, and the fixed cost "
        "of each of its {chunks} {chunks:micro-batch|micro-batches}, bring the batch's forward to {total} s."
    ),
    "speed.basis.prefill": (
        "Prompt: {flops} TFLOP for {tokens} tokens at {share} of {tflops} TFLOPS{each} ({kernel} matmuls)."
    ),
    "speed.basis.prefill_host_unified": (
        "Of the prompt's {total} s, {seconds} s copy the {bytes} of weights in system RAM to the GPU's buffers, once "
        "for each of its {chunks} {chunks:micro-batch|micro-batches}, at {pcie} GB/s (half the unified memory's "
        "bandwidth: each byte read and written)."
    ),
    "speed.basis.prefill_host": (
        "Of the prompt's {total} s, {seconds} s copy the {bytes} of weights in system RAM to the GPU, once for each of "
        "its {chunks} {chunks:micro-batch|micro-batches}, at {pcie} GB/s over PCIe."
    ),
    "speed.basis.output": (
        "All sequences: {rate} output tokens/s under a steady load of {sequences} sequences, where decoding alone "
        "would give {decoding}: each new request's {prompt}-token prompt is processed between the decode steps, "
        "about {share} of the engine's time."
    ),
    "speed.basis.engine": "Rates of {engine} fitted to: {basis}.",
    "speed.basis.training": (
        "Step: {flops} PFLOP for {tokens} tokens per replica at {share} model FLOPs utilisation of {tflops} TFLOPS per "
        "GPU ({kernel} matmuls), on {gpus} {gpus:GPU|GPUs}; rates fitted to: {basis}."
    ),
    "speed.error": (
        "Typical error against published runs: {median} at the median, {worst} at worst ({rows} runs, {backend})."
    ),
    "speed.error.trainer": (
        "Typical error against published runs: {median} at the median, {worst} at worst ({rows} runs, {backend}: "
        "torchtune's, compiled). The Hugging Face Trainer's own published runs ({trainer_rows}, QLoRA on one GPU) "
        "took {low}–{high}× the predicted time: treat the time as an underestimate."
    ),
    "speed.error.objective": (
        "{objective} steps are not checked against published runs yet: treat the time as a rough estimate."
    ),
    "speed.error.preference": (
        "Against {rows} published TRL runs ({objectives}): {median} at the median, {worst} at worst, every one slower "
        "than predicted ({low}–{high}× the predicted time): treat the time as an underestimate."
    ),
    "speed.error.grpo": (
        "Against published GRPO runs: {median} at the median, {worst} at worst ({rows} open-r1 runs, 7B models on "
        "H100s); other sizes and cards are not checked yet."
    ),
    "speed.error.none": "Not checked against published runs for this engine yet: treat it as a rough estimate.",
    "speed.error.platform": (
        "Not checked against published runs on this platform yet ({backend}; only {checked}): treat it as a rough "
        "estimate."
    ),
    "speed.error.fewer_gpus": (
        "Typical error against published runs: {median} at the median, {worst} at worst ({rows} runs, {backend}), all "
        "on {least} GPUs or more: the engine's fixed cost per layer and step is not measured on fewer GPUs of this "
        "platform, so treat it as a rough estimate, likely too fast for a small model."
    ),
    "speed.error.other_cards": (
        "Typical error against published runs: {median} at the median, {worst} at worst ({rows} runs, {backend}), all "
        "on {kinds} cards: none on this kind of card, so treat it as a rough estimate."
    ),
    "speed.memory.hbm": "HBM",
    "speed.memory.gddr": "GDDR",
    "speed.memory.unified": "unified-memory",
    "speed.unknown_bandwidth": (
        "Speed unknown: this card's memory bandwidth is not known. Give it (--gpu-bandwidth, in GB/s)."
    ),
    "speed.unknown_tflops": "Prompt speed unknown: this card's 16-bit TFLOPS are not known. Give them (--gpu-tflops).",
    "speed.unknown_tflops_run": "Speed unknown: this card's 16-bit TFLOPS are not known. Give them (--gpu-tflops).",
    "speed.unknown_layout": "Speed unknown: these GPUs cannot run this layout.",
    "speed.chart.context.title": "Generation speed against context length",
    "speed.chart.context.desc": (
        "Tokens per second of one sequence from {low} at {seq} tokens of context to {high} at the start."
    ),
    "speed.chart.context.x": "context (tokens)",
    "cost.price.given": "Costs at the price per GPU-hour given.",
    "cost.price.default": "Costs at a cloud price of {date} ({source}); give your own price per GPU-hour to change it.",
    "cost.price.none": "No cost: {gpu} has no default price per GPU-hour; give yours (--gpu-hour-price) to price it.",
    "field.prompt_tokens.label": "Prompt tokens",
    "field.prompt_tokens.help": "Tokens of each prompt, for the speed; empty: the sequence less the output.",
    "field.output_tokens.label": "Output tokens",
    "field.output_tokens.help": (
        "Tokens each sequence generates (256 if empty). The sequence is at least prompt + output."
    ),
    "field.gpu_bandwidth.label": "Memory bandwidth (GB/s)",
    "field.gpu_bandwidth.help": "The card's, if you know better or it is not listed; empty: the card's own.",
    "field.gpu_tflops.label": "16-bit TFLOPS",
    "field.gpu_tflops.help": "Dense FP16/BF16 tensor TFLOPS; empty: the card's own.",
    "field.ram_bandwidth.label": "System RAM bandwidth (GB/s)",
    "field.ram_bandwidth.help": (
        "For layers kept in RAM; empty: 64 (a dual-channel DDR5 desktop), or on a Mac, DGX Spark or Strix Halo half "
        "its memory's bandwidth (what its CPU reads)."
    ),
    "field.gpu_hour_price.label": "Price per GPU-hour (US$)",
    "field.gpu_hour_price.help": "What one GPU costs you for an hour; empty: a cloud price where one is known.",
    "field.train_tokens.label": "Training tokens",
    "field.train_tokens.help": "Tokens the run processes (examples × tokens × epochs), for its time and cost.",
    "legend.speed": "Speed and cost",
    "speed.fit.llamacpp": (
        "llama-bench runs of 2024-25 (tests/data/speed: XiongjieDai's Llama 3 tables, ggml-org/llama.cpp discussions "
        "#4167, #15013 and, for ROCm, #15021)"
    ),
    "speed.fit.vllm": (
        "84 published serving runs of vLLM 0.6-0.11 and SGLang (tests/data/speed: GPUStack's Performance Lab on "
        "A100/H100/H200, Oracle's MI300X tables, an RTX 4090 sweep; output tokens/s at the run's concurrency)"
    ),
    "speed.fit.transformers": (
        "transformers generate against published decode runs (tests/data/speed/transformers_bnb_*.json: bitsandbytes' "
        "v0.45 benchmarks on an RTX 4090 and an H100, optimum's Llama 2 13B on an A100, optimum-quanto's on an A10G; "
        "bf16/fp16, nf4, nf4-dq and bnb-int8 at batch 1 to 32)"
    ),
    "speed.fit.training": (
        "torchtune's README tables of fine-tuning tokens/s (Llama 3.1 8B on one RTX 4090, 70B and 405B on 8 A100s, "
        "Llama 3.2 3B on one A100)"
    ),
    "speed.figure.fastest_format": "Fastest weights that fit (4 bits or more; ties within 10 % go to the most precise)",
    "speed.figure.max_concurrency": "Most sequences at the speed asked",
    "speed.figure.min_gpus_for_run": "Fewest GPUs to finish in time",
    "speed.value.concurrency": "{count} {count:sequence|sequences} at {rate} tokens/s or more each",
    "speed.value.concurrency_none": "none: one sequence alone is slower than {rate} tokens/s",
    "speed.value.gpus_for_run": "{count} GPUs finish it within {hours} h",
    "speed.value.gpus_for_run_none": "none up to 1,024",
    "field.min_tokens_per_s.label": "Speed each sequence keeps (tokens/s)",
    "field.min_tokens_per_s.help": "For \"most sequences at this speed\" (default 10, about reading speed).",
    "field.max_run_hours.label": "Hours the run may take",
    "field.max_run_hours.help": "For \"fewest GPUs to finish in time\" (with the training tokens).",
    "page.status.bytes": "{loaded} of {total} MB downloaded",
    "speed.kernel.16-bit": "16-bit",
    "speed.kernel.fp8": "FP8",
    "speed.kernel.quantised": "quantised",
    "speed.kernel.fp32": "FP32",
    "speed.fit.none": "nothing: this engine has no rates of its own yet, so transformers' are used",
    "speed.not_fit": "It does not fit these GPUs: these speeds are those it would have if it did.",
    "speed.value.concurrency_no_fit": "none: one sequence does not fit",
    "speed.value.concurrency_not_whole": "none: one sequence does not fit with every layer on the GPU",
    "llamacpp.cpu_moe": (
        "; the routed experts of the first {layers} {layers:layer|layers} are in system RAM (--n-cpu-moe)"
    ),
    "llamacpp.override_ram": "; --override-tensor moves {bytes} (net) of the weights to system RAM",
    "llamacpp.override_gpu": "; --override-tensor moves {bytes} (net) of the weights to the GPU",
    "field.override_tensor.label": "Tensor placement (--override-tensor)",
    "field.override_tensor.help": (
        "llama.cpp's -ot: PATTERN=DEVICE, comma-separated; a tensor whose GGUF name the pattern matches goes to "
        "CPU (system RAM) or CUDA0 (the GPU). E.g. blk\\.(1[0-9])\\.ffn_.*_exps=CPU."
    ),
    "field.n_cpu_moe.label": "Expert layers in system RAM (--n-cpu-moe)",
    "field.n_cpu_moe.help": (
        "Mixture of experts: the first N layers keep their experts in RAM, the rest stays on the GPU."
    ),
    "option.mode.speech": "Speech",
    "field.beams.label": "Beams",
    "field.beams.help": "Speech models: the beam size (1: greedy). Every beam keeps its own decoder cache.",
    "field.audio_seconds.label": "Audio length (seconds)",
    "field.audio_seconds.help": "Speech models: each audio's length; Whisper hears it in 30-second windows.",
    "field.images.label": "Images per request",
    "field.images.help": "Each becomes the tokens its model's processor makes of it, added to every sequence.",
    "field.videos.label": "Videos per request",
    "field.videos.help": "Each becomes its frame pairs' tokens (and timestamps), frames of the image size.",
    "field.video_seconds.label": "Video length (seconds)",
    "field.video_seconds.help": "Each video's length.",
    "field.video_fps.label": "Video frames sampled per second",
    "field.video_fps.help": "The frames the processor takes from each second (2 by default).",
    "field.image_width.label": "Image width (pixels)",
    "field.image_width.help": "Each image's width (and each video frame's).",
    "field.image_height.label": "Image height (pixels)",
    "field.image_height.help": "Each image's height (and each video frame's).",
    "field.cpu_moe.label": "All experts in system RAM (--cpu-moe)",
    "field.cpu_moe.help": "Every layer's experts in RAM: attention, shared experts and the cache stay on the GPU.",
    "speed.figure.llamacpp_fit": "llama.cpp's own fit (without \u2011ngl, as Ollama runs it)",
    "speed.value.fit": "-ngl {layers}{split}{parts}: {rate} per sequence",
    "speed.value.fit_parts": ", the experts (or MLP) of {count} layers in RAM",
    "speed.value.fit_none": "nothing fits",
    "speed.figure.min_n_cpu_moe": "Fewest expert layers in RAM that fit",
    "speed.value.n_cpu_moe": "--n-cpu-moe {layers}: {rate} per sequence",
    "option.runtime.ollama": "Ollama (its own context and defaults)",
    "field.ollama_version.label": "Ollama version",
    "field.ollama_version.help": (
        "As `ollama -v` prints it (e.g. 0.9.6); empty: the latest read, 0.33. Its defaults changed: context "
        "2,048 before 0.6.7, then 4,096, by VRAM from 0.15.5; up to 4 sequences before 0.9.7; llama-server's "
        "own fit from 0.30."
    ),
    "field.num_ctx.label": "Ollama context (num_ctx)",
    "field.num_ctx.help": (
        "Tokens Ollama allocates per sequence; empty: its default by the GPU's memory (4,096, 32,768 from 23 GiB, "
        "262,144 from 47 GiB)."
    ),
    "ollama.ctx_default": (
        "Ollama allocates {ctx} tokens per sequence (its default for this GPU's memory, v0.15.5 and later){cut}"
    ),
    "ollama.ctx_default_fixed": "Ollama allocates {ctx} tokens per sequence (its default {when}){cut}",
    "note.ollama_tags": (
        "This is a 16-bit file. Ollama's library tags (ollama run NAME:SIZE) are Q4_K_M unless the tag names another "
        "type (gpt-oss's MXFP4, a :fp16 or :q8_0 tag): choose q4_k_m to size what ollama run downloads."
    ),
    "ollama.before": "before v0.6.7; this is v{version}",
    "ollama.between": "from v0.6.7 to v0.15.4; this is v{version}",
    "ollama.parallel_kept": (
        "; with OLLAMA_NUM_PARALLEL not set, this version runs {n} {n:sequence|sequences} of that context, as the "
        "model "
        "then fits the GPU whole"
    ),
    "ollama.parallel_fell": (
        "; with OLLAMA_NUM_PARALLEL not set, this version tries {n} {n:sequence|sequences}, then one, as with {n} the "
        "model would not fit the GPU whole"
    ),
    "ollama.fit": (
        "Ollama lets llama-server fit the model to the card (num_gpu not set; its log: \"offloaded {on_gpu}/{layers} "
        "layers to GPU\"){experts}; the table of cards counts the model whole on each"
    ),
    "ollama.fit_experts": ", with some layers' experts in system RAM",
    "ollama.ctx_given": "Ollama allocates {ctx} tokens per sequence (num_ctx){cut}",
    "ollama.cut": ", whatever the request's {seq}: longer prompts are cut",
    "speed.chart.moe.title": "Speed against GPU memory, as --n-cpu-moe moves experts to system RAM",
    "speed.chart.moe.desc": (
        "From {fast} tokens/s with every expert on the GPU ({most}) to {slow} tokens/s with the experts of all "
        "{layers} layers in RAM ({least}); the vertical line is the card's memory."
    ),
    "speed.chart.moe.x": "GPU memory (GiB)",
    "speed.basis.reference": (
        "The forwards without gradients (the reference's; the old policy's; KTO's KL batch; PPO's value and reward "
        "models) add {flops} PFLOP per step (2 × parameters per token)."
    ),
    "speed.basis.rollout": (
        "Before it, {engine} generates {sequences} completions of {tokens} tokens: {seconds} s, {share} of the step."
    ),
    "speed.basis.rollout_shared": (
        "Before it, {engine} generates {sequences} completions of {tokens} tokens {per_step} times per step on average "
        "(one generation serves steps per generation × updates per generation micro-steps; PPO: its chunks, for its "
        "epochs): {seconds} s per step, "
        "{share} of it."
    ),
    "speed.basis.sync": (
        "Keeping {gpus} data-parallel copies in step moves {seconds} s of traffic per step over a {link} GB/s link, "
        "beside {compute} s of compute: the step takes the longer."
    ),
    "runtime.llamacpp_log": (
        "As llama.cpp's llama_memory_breakdown_print logs it, in MiB: GPU self {self} = model {model} + context "
        "{context} + compute {compute}; Host {host} = {host_model} + {host_context} + {host_compute}."
    ),
    "speed.figure.cheapest_card": "Cheapest card it fits (default prices)",
    "speed.value.cheapest": "{gpu}: US${usd} per million output tokens",
    "speed.value.cheapest_training": "{gpu}: US${usd} per million training tokens",
    # ---- image and video pipelines (family=diffusion; render/diffusion.py)
    "field.family.label": "What to run",
    "field.family.help": "A language model (text in, text out) or an image or video diffusion pipeline.",
    "option.family.language": "Language model",
    "option.family.diffusion": "Image or video",
    "legend.diffusion": "Image or video pipeline",
    "field.pipeline.label": "Pipeline",
    "field.pipeline.help": "Its parts (text encoders, denoiser, VAE) counted tensor by tensor from each config.json.",
    "field.denoiser_precision.label": "Denoiser weights",
    "field.denoiser_precision.help": "fp8: layerwise casting; nf4: bitsandbytes; gguf-*: city96's GGUF files.",
    "field.text_precision.label": "Text encoder weights",
    "field.text_precision.help": "The text encoders' format.",
    "field.vae_precision.label": "VAE weights",
    "field.vae_precision.help": "The VAE's format.",
    "field.placement.label": "Placement",
    "field.placement.help": "What stays on the GPU while the pipeline runs (diffusers' CPU offload).",
    "option.placement.gpu": "Every part on the GPU",
    "option.placement.model": "Model CPU offload (one part at a time)",
    "option.placement.sequential": "Sequential CPU offload (one module at a time)",
    "field.text_encoders.label": "Text encoders",
    "field.text_encoders.help": "Where the text encoders (T5-XXL, UMT5, Llama, Qwen, CLIP) are kept and run. On the "
                                "CPU, as ComfyUI can run them, their weights never reach the GPU and only the prompt "
                                "embeddings are copied to it; encoding is slower and takes system RAM instead.",
    "option.text_encoders.gpu": "As the placement says",
    "option.text_encoders.cpu": "On the CPU",
    "field.width.label": "Width (pixels)",
    "field.width.help": "A multiple of 16; empty: the pipeline's.",
    "field.height.label": "Height (pixels)",
    "field.height.help": "A multiple of 16; empty: the pipeline's.",
    "field.frames.label": "Frames",
    "field.frames.help": ("Video pipelines: 4k + 1 (81, 49, ...), LTX-Video 8k + 1 (161, 121, ...); "
                          "empty: the pipeline's. Images: 1."),
    "field.per_prompt.label": "Images or videos per prompt",
    "field.per_prompt.help": "Generated together in one batch.",
    "field.cfg.label": "Classifier-free guidance",
    "field.cfg.help": "A second, negative prompt's pass at each step; guidance-distilled models run without it.",
    "option.cfg.default": "The pipeline's",
    "option.cfg.on": "On",
    "option.cfg.off": "Off",
    "field.vae_tiling.label": "VAE tiles (pixels)",
    "field.vae_tiling.help": "Decode tile by tile (the VAE's enable_tiling()), tiles this many pixels a side, 3/4 of "
                             "a tile apart: 128 to 4,096, a multiple of 32; empty: one piece.",
    "field.blocks_to_swap.label": "Blocks to swap",
    "field.blocks_to_swap.help": "The denoiser's first transformer blocks kept in system RAM, each moved to the GPU "
                                 "for its turn (ComfyUI-WanVideoWrapper's block swap); 0: none.",
    "diffusion.caption": "Each part's weights and each stage's memory on the GPU (GiB = 2³⁰ bytes)",
    "diffusion.weights": "Weights: {role} ({cls})",
    "diffusion.weights.how": "{params} parameters in {precision}",
    "diffusion.weights.how_cpu": "{params} parameters in {precision}, in system RAM (never on the GPU)",
    "diffusion.stage.encode_cpu": "Text encoding on the CPU ({role})",
    "diffusion.stage.encode": "Text encoding ({role})",
    "diffusion.stage.denoise": "One denoising step",
    "diffusion.stage.denoise_high": "One denoising step of the high-noise expert ({role})",
    "diffusion.stage.denoise_low": "One denoising step of the low-noise expert ({role})",
    "diffusion.stage.decode": "VAE decode",
    "diffusion.stage.decode_tiled": "VAE decode, tiles of {tile} pixels",
    "diffusion.stage.how": "{weights} of weights + {working} of working memory + {carried} carried",
    "diffusion.peak": "{stage}: the peak",
    "diffusion.stage.how_partial": "{weights} of weights + {carried} carried; its working memory is not modelled yet",
    "diffusion.change.swap": "Swap {blocks} of the denoiser's {total} transformer blocks to system RAM (blocks to "
                             "swap: {blocks}).",
    "diffusion.frames": " × {frames} frames",
    "diffusion.fix.placement": "placement: model CPU offload (one part on the GPU at a time)",
    "diffusion.fix.text_encoders": "the text encoders kept and run on the CPU",
    "diffusion.fix.vae_tiling": "a tiled VAE decode ({value} px tiles)",
    "diffusion.fix.precision": "the denoiser in {value}",
    "diffusion.fix.size": "images of {width} × {height} px",
    "diffusion.fix.frames": "{value} {value:frame|frames}",
    "diffusion.fix.together": "all of: {fixes}",
    "diffusion.cfg.True": "CFG on",
    "diffusion.cfg.False": "CFG off",
    "diffusion.summary": "{pipeline}, {width} × {height}{frames}, {batch} per prompt, {cfg}; {placement}",
    "diffusion.incomplete": "At least this much: a stage's working memory is not modelled yet, so the peak may be "
                            "higher.",
    "diffusion.tensors_only": "PyTorch's tensors, as measured with diffusers: the CUDA context (0.4 to 1 GiB by "
                              "card) and the caching allocator's reserve come on top.",
    "diffusion.speed.note": "On {gpu}: {steps} steps × {step} = {denoise}; {total} per {output} {with_} ({validated}).",
    "diffusion.speed.with.True.True": "with the text encoding and the VAE decode",
    "diffusion.speed.with.True.False": "with the text encoding (the VAE decode not counted)",
    "diffusion.speed.with.False.True": "with the VAE decode (the text encoding on the CPU not counted)",
    "diffusion.speed.with.False.False": "(the text encoding on the CPU and the VAE decode not counted)",
    "diffusion.speed.image": "image",
    "diffusion.speed.clip": "clip",
    "diffusion.speed.validated.True": "validated against published runs",
    "diffusion.speed.validated.False": "not validated",
    "diffusion.speed.unknown_tflops": "Not timed: the card's 16-bit tensor rate is not in the GPU data.",
    "diffusion.speed.not_counted": "Not timed: the FLOPs of {name} are not counted yet.",
    "diffusion.speed.training": "Not timed: a LoRA training step's time is not modelled yet (only its memory).",
    "diffusion.cost.note": "Cost: US${usd} per {output} at US${hour} per GPU-hour.",
    "diffusion.speed.fp32": "Not timed: fp32 weights run at another rate than the 16-bit one the time is fitted to.",
    "diffusion.speed.basis": "{steps} steps of {tflop} TFLOP each (every image and guidance pass), the text "
                             "encoding and the VAE decode, counted layer by layer, at {share} of the card's dense "
                             "16-bit {tflops} TFLOPS: the share published runs reach.",
    "diffusion.speed.basis_no_decode": "{steps} steps of {tflop} TFLOP each (every image and guidance pass) and the "
                                       "text encoding, counted layer by layer, at {share} of the card's dense 16-bit "
                                       "{tflops} TFLOPS: the share published runs reach.",
    "diffusion.speed.encode_on_cpu": "The text encoders on the CPU: their time is left out.",
    "diffusion.speed.decode_not_counted": "This VAE's decode is not counted yet: its time is left out.",
    "diffusion.speed.offload": "Weights moved over PCIe at {pcie} GB/s by the placement: {seconds} s.",
    "diffusion.speed.dequantise": "GGUF and NF4 weights are dequantised at every layer: expect it slower.",
    "diffusion.speed.error": "Against {rows} published runs of this kind: {median} median error, {worst} worst; "
                             "{held_out} median when each source is predicted from the others.",
    "diffusion.speed.unvalidated": "Not validated: {rows} published runs of this kind of denoiser on this class of "
                                   "card (docs/accuracy.md).",
    "field.train_lora.label": "LoRA training (rank)",
    "field.train_lora.help": "One training step of LoRA adapters of this rank on a Flux, FLUX.2 or Wan denoiser, as "
                             "sd-scripts, musubi-tuner and ai-toolkit run it; 0: a generation.",
    "field.train_lora_targets.label": "Adapted layers",
    "field.train_lora_targets.help": "Every Linear of the transformer blocks, or all but Flux's AdaLN modulation "
                                     "(musubi-tuner's).",
    "option.train_lora_targets.all": "Every Linear of the blocks",
    "option.train_lora_targets.no-modulation": "All but the modulation",
    "field.adapter_precision.label": "Adapters",
    "field.adapter_precision.help": "The adapters, their gradients and AdamW's state (fp32: --mixed_precision bf16).",
    "field.train_optimizer.label": "Optimizer",
    "field.train_optimizer.help": "adamw8bit: bitsandbytes' 8-bit AdamW.",
    "field.train_checkpointing.label": "Gradient checkpointing",
    "field.train_checkpointing.help": "The forward keeps each block's input only; the backward recomputes a block "
                                      "at a time.",
    "field.cache_latents.label": "Cached latents and embeddings",
    "field.cache_latents.help": "Encoded once before training: the VAE and the text encoders stay off the GPU.",
    "option.train_checkpointing.on": "On",
    "option.train_checkpointing.off": "Off",
    "option.cache_latents.on": "Cached",
    "option.cache_latents.off": "Encoded in each step",
    "diffusion.train.caption": "The training step's memory on the GPU at its peak, in the backward (GiB = 2³⁰ bytes)",
    "diffusion.train.weights": "Frozen denoiser",
    "diffusion.train.weights.how": "in {precision}, no gradients",
    "diffusion.train.encoders": "VAE and text encoders",
    "diffusion.train.encoders.how": "on the GPU to encode each batch (latents and embeddings not cached)",
    "diffusion.train.adapters": "LoRA adapters",
    "diffusion.train.adapters.how": "{params} parameters in {adapters}",
    "diffusion.train.gradients": "Their gradients",
    "diffusion.train.gradients.how": "in {adapters}, made as the backward reaches each block",
    "diffusion.train.optimizer": "Optimizer state",
    "diffusion.train.optimizer.how": "{optimizer}: two moments per adapter parameter",
    "diffusion.train.inputs": "Latents and text embeddings",
    "diffusion.train.inputs.how": "the batch's, in bf16",
    "diffusion.train.activations": "Saved activations",
    "diffusion.train.activations.how": "kept by the forward for the backward (with checkpointing: each block's "
                                       "input, and one block recomputed)",
    "diffusion.train.transients": "Backward transients",
    "diffusion.train.transients.how": "gradients in flight at the widest layer, and an fp8 base's bf16 weight copies",
    "diffusion.train.summary": "{pipeline}: one LoRA training step, rank {rank}, {width} × {height}{frames}, batch "
                               "{batch}, {checkpointing}",
    "diffusion.train.checkpointing.True": "gradient checkpointing",
    "diffusion.train.checkpointing.False": "no checkpointing",
    "diffusion.train.params": "{count} trainable parameters",
    "diffusion.train.note": "The step's peak, in its backward; within 5 % of steps measured on small Flux, FLUX.2 "
                            "and Wan configs with diffusers and peft (docs/accuracy.md). Block swapping while "
                            "training is not modelled.",
    "verdict.train_no": "Does not fit on {where}: {used} needed of {usable} ({share}).",
    "diffusion.train.change.denoiser_precision": "An fp8 base (denoiser weights: fp8): {used}.",
    "diffusion.train.change.train_optimizer": "AdamW8bit: {used}.",
    "diffusion.train.change.train_checkpointing": "Gradient checkpointing: {used}.",
    "diffusion.train.change.cache_latents": "Cached latents and embeddings: {used}.",
    "diffusion.train.change.adapter_precision": "bf16 adapters: {used}.",
    "diffusion.train.change.per_prompt": "A batch of 1: {used}.",
    "target.mixed": "{gpus}",
    "verdict.mixed": "{gpus}, the fullest for its size being {device} ({gpu})",
    "reverse.heading_mixed": "On {target} ({memories}), {layout}",
    "layout.split_free": "layers {layers}: llama.cpp splits them by each GPU's free memory",
    "layout.split_given": "layers {layers}, as --tensor-split gives them",
    "rank.device": "{device} {gpu}: {layers} {layers:layer|layers}; model {model}, context {context}, "
                   "compute {compute}, overhead {overhead}: {total} of {memory} ({share})",
    "split.device_layers": "{count} of the {layers} layers -ngl counts (the output layer is one)",
    "answer.gpus_mixed": "not counted for different cards (the table of GPUs counts cards of one kind)",
    "field.tensor_split.label": "Layers per GPU (--tensor-split)",
    "field.tensor_split.help": (
        "llama.cpp's -ts: each GPU's proportion of the layers, CUDA0 first (e.g. 3,1). Empty: by each GPU's free "
        "memory. Different cards: list them in the GPU field (rtx-3090,rtx-4060-ti-16gb)."
    ),
    "option.runtime.tei": "text-embeddings-inference (TEI)",
    "field.max_batch_tokens.label": "Max batch tokens",
    "field.max_batch_tokens.help": "TEI's --max-batch-tokens: the tokens of its largest batch (default 16,384).",
    "field.max_batch_requests.label": "Max batch requests",
    "field.max_batch_requests.help": "TEI's --max-batch-requests; empty: no limit.",
    "field.window_tokens.label": "Tokens per window",
    "field.window_tokens.help": (
        "faster-whisper: the tokens the decoder writes for each 30-second window; empty: the most it may, 224 "
        "(the worst case)."
    ),
    "field.no_fallback.label": "No temperature fallback",
    "field.no_fallback.help": (
        "faster-whisper, one window at a time: temperature=0, beam search only. Off: the fallback's best_of 5 "
        "samples, each with its own cross-attention, are counted (the worst case)."
    ),
    "tei.kv_cache": "TEI keeps no KV cache",
    "tei.activations": (
        "TEI's largest batch: {sequences} × {seq} tokens ({tokens} of --max-batch-tokens {budget}), {attention}, "
        "as its candle models allocate it (read from its source, not measured: approximate) = {bytes}"
    ),
    "tei.rotary_cache": (
        " + the cos and sin tables TEI's flash GTE builds at load, 2 × {rows} × {width} values = {bytes}"
    ),
    "tei.flash": "flash attention, unpadded",
    "tei.padded": "padded, with the attention scores per head",
    "tei.overhead": "CUDA context with cuBLAS, taken as PyTorch's on this card (approximate for TEI) = {bytes}",
    "note.tei": (
        "TEI's figures are read from its source (1.9), not measured: its largest batch as its queue forms it, "
        "float16 by default; its CUDA context is taken as PyTorch's."
    ),
    "note.tei_turing": (
        "TEI's image for Turing cards (turing-1.x, the T4's) starts with flash attention off (USE_FLASH_ATTENTION="
        "False: flash attention v1's precision issues) and runs the padded model: choose eager attention to count "
        "it. The answer shown is with USE_FLASH_ATTENTION=True."
    ),
    "speed.figure.embed": "Embedding throughput",
    "speed.figure.requests": "Sequences embedded",
    "speed.value.requests_s": "{value} {value:sequence|sequences}/s",
    "speed.line.embedding": "About {tokens} tokens/s embedded, {requests} {requests:sequence|sequences}/s.",
    "speed.speculative": (
        "Speculative decoding with {drafter}: {drafted} {drafted:token|tokens} drafted per step, each accepted with "
        "probability {acceptance} ({source}), so a step yields {tokens} tokens on average ((1 − a^(k+1)) / (1 − a), "
        "Leviathan et al. 2023, every position alike). A step costs the model's check of {checked} tokens per "
        "sequence and the drafts ({draft} ms); the time per token above is a step's over those {tokens}. {serving}"
    ),
    "speed.speculative.mtp": "the model's MTP layers",
    "speed.speculative.draft": "the draft model {draft}",
    "speed.speculative.given": "as given",
    "speed.speculative.default_mtp": (
        "assumed: DeepSeek-V3's report has its second token accepted 85-90 % of the time; give your model's rate "
        "as the acceptance"
    ),
    "speed.speculative.default_draft": (
        "assumed: a middle value of llama.cpp's published runs, which range from 34 % to 80 %; give your model's rate "
        "as the acceptance"
    ),
    "speed.speculative.draft_checked": (
        "Held to the one published llama.cpp run with a draft model, this speed-up came out 40 % too high (2.39x "
        "against 1.71x): llama.cpp samples every drafted and checked token on the CPU, which is not counted."
    ),
    "speed.speculative.assistant": (
        "transformers drafts up to num_assistant_tokens ({drafted}) per step and stops sooner where the assistant's "
        "confidence falls below assistant_confidence_threshold (0.4): counted as {drafted} every step, the slowest."
    ),
    "speed.speculative.single": "The acceptance depends on the model, its drafter and the text, not on the card.",
    "speed.speculative.serving": (
        "Serving: the decoding share of vLLM's time is shortened as this step model shortens a step of the running "
        "sequences (a compute-bound batch gains less), not yet held to a published serving run with speculation."
    ),
    "speed.embedding.checked": (
        "Embedding speed is the batch's forward timed as a prompt is (its FLOPs over the engine's share of the "
        "card's rate). Against {rows} published embedding runs (TEI, infinity and PyTorch on an L4, an MI210 and an "
        "A100): {median} at the median, {within} of {rows} within 2×; a run that tokenises on the CPU inside its "
        "timing (sentence-transformers' encode) is slower than this."
    ),
    "option.runtime.faster-whisper": "faster-whisper (CTranslate2)",
    "faster_whisper.weights": (
        "CTranslate2 {compute}: matrices and the token embedding in its weight type (int8 with a float32 scale per "
        "row), convolutions, positions, norms and biases in its float type = {bytes}"
    ),
    "faster_whisper.weights_padded": (
        "CTranslate2 {compute}: matrices and the token embedding in its weight type (int8 with a float32 scale per "
        "row), convolutions, positions, norms and biases in its float type {stored}, and the output layer copied to "
        "{rows} {rows:row|rows}, a multiple its GEMMs prefer, {copy} = {bytes}"
    ),
    "faster_whisper.kv_cache": (
        "{layers} decoder layers: cross-attention K and V over {frames} frames for {cross} {cross:row|rows}, "
        "self-attention "
        "over {tokens} positions for {rows} {rows:row|rows} ({path}; {case}) = {bytes}"
    ),
    "faster_whisper.worst": "the worst case: each window writes the most tokens, {written}, {fallback}",
    "faster_whisper.given": "each window writes {written} tokens, as given, {fallback}",
    "faster_whisper.with_fallback": "and falls back to sampling best_of {best_of}",
    "faster_whisper.no_fallback": "with no temperature fallback",
    "faster_whisper.batched": "the batched pipeline has no temperature fallback",
    "faster_whisper.beams": "beam search with {beams} beams shares a window's cross-attention",
    "faster_whisper.fallback": (
        "the temperature fallback's best_of {best_of} samples, each with its own cross-attention, outgrow "
        "{beams} beams"
    ),
    "faster_whisper.activations": (
        "the encoder over {batch} windows {encode}, or beside the caches the encoder's output and the step's "
        "logits {decode}; read from CTranslate2's source, not measured: approximate = {bytes}"
    ),
    "faster_whisper.overhead": (
        "CUDA context with cuBLAS, taken as PyTorch's on this card (approximate for CTranslate2) = {bytes}"
    ),
    "note.faster_whisper": (
        "faster-whisper's figures are read from CTranslate2's source, not measured. Unless told otherwise "
        "(tokens per window, no temperature fallback) they are the worst case: every window writes the most "
        "tokens and, one window at a time, the temperature fallback samples best_of 5; its CUDA context is taken "
        "as PyTorch's."
    ),
    "speed.speech.basis": (
        "Transcription of {audio} s of audio: {windows} {windows:window|windows} of 30 s in {groups} "
        "{groups:pass|passes} of {rows} decoder {rows:row|rows} (windows × beams). Encoder {encode} s: {flops} TFLOP a "
        "window, and the decoder's prompt (its cross-attention K and V included), at {share} of {tflops} TFLOPS "
        "({kernel} matmuls). Decoder {decode} s: {tokens} tokens a window ({given}), {step} ms a step that reads the "
        "weights and the caches once, {fixed} ms of it fixed. The audio decoded and its spectrogram on the CPU: "
        "{host} s."
    ),
    "speed.speech.given": "as given",
    "speed.speech.typical": "about 30 s of speech; the words spoken set it",
    "speed.speech.error": (
        "Rates fitted to {rows} published runs (faster-whisper and whisper.cpp, Whisper large-v2 on an RTX 3070 Ti), "
        "within {fit} of each; runs held out (transformers, an older faster-whisper on a V100S) within {held} "
        "(docs/accuracy.md). A window that writes more tokens, or falls back to sampling, takes longer."
    ),
    "speed.figure.transcribe": "Transcription time",
    "speed.figure.rtf": "Real-time factor",
    "speed.value.rtf": "{value} ({speed}× real time)",
    "speed.line.speech": "Transcribes {audio} of audio in {time} ({speed}× real time).",
    "speed.kernel.int8": "int8",
    "speed.kernel.fp16-acc16": "FP16-accumulate",
}
