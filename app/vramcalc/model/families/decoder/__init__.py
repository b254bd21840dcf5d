"""Decoder-only language models (transformers' *ForCausalLM): spec, tensors, KV cache, traits,
what a layer saves for backward and what its prefill allocates."""
