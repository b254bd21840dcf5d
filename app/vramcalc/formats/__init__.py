"""Weight formats: per-tensor bytes of each format, and llama-quantize's GGUF plan."""
