"""How people fine-tune: recipes, optimizers, LoRA, and the phases of a step."""
