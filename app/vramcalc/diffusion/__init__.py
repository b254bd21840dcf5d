"""Image and video diffusion pipelines: a pipeline is its parts (text encoders, a denoiser, a VAE), each listed
tensor by tensor from its config.json as the diffusers or transformers class builds it (`tensors`), stored in a
precision and placed on the GPU or the CPU (`weights`), with the working memory of each stage (`stages`)."""
