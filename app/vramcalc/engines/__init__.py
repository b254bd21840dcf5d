"""One module per runtime: transformers, vLLM, llama.cpp."""
