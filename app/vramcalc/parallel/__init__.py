"""Several GPUs: layouts, what each rank keeps of each tensor, and the most loaded rank."""
