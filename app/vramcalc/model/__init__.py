"""What a network is made of: tensors, and the families of models (decoder-only language models)."""
